// First start: replays the sources' past into history (sparser than live capture) and writes the
// final state of events that are no longer in the live window. Deterministic, so safe to redo;
// skipped once the events service has applied a cycle, which it is given only after history and
// catalogue took every write (a process killed before then redoes it on restart: nothing lost).
import type { Logger } from "@odds/platform";
import { BACKFILL_BATCH_LIMITS, cycleIdAt, type CycleRunner, type CycleSink } from "./cycle-runner";
import type { BookObservation, CycleContent, EventRef } from "./domain/model";
import { normaliseCycle, observeSnapshot, type RankedSnapshot } from "./domain/normalise";
import type { FeedSource } from "./sources/feed-source";

/** Capture began on 2026-08-14 (the contract's history rule 4). */
export const CAPTURE_START = new Date("2026-08-14T00:00:00Z");
const DAY_MS = 86_400_000;
/** Events older than this are backfilled with moneylines only (the stack must come up in about 2 minutes). */
const MAIN_MARKETS_DAYS = 7;

export interface BackfillReport {
  skipped: boolean;
  /** The first live cycle went out with the backfill. */
  firstCycleWritten: boolean;
  snapshots: number;
  quotes: number;
  events: number;
}

export function backfillStart(now: Date, backfillDays: number | undefined): Date {
  return backfillDays === undefined ? CAPTURE_START : new Date(now.getTime() - backfillDays * DAY_MS);
}

/** Everything the backfill writes, built without writing anything. */
export async function buildBackfill(
  sources: FeedSource[],
  from: Date,
  now: Date,
  fairOddsBookmakers: readonly string[],
): Promise<CycleContent> {
  const sparseBefore = new Date(now.getTime() - MAIN_MARKETS_DAYS * DAY_MS);
  const observations: BookObservation[] = [];
  const refs = new Map<string, EventRef>();
  for (const source of sources) {
    if (!source.replay) continue;
    for (const snapshot of await source.replay(from, now, sparseBefore)) {
      observations.push(...observeSnapshot({ sourceID: source.id, rank: source.rank, snapshot }).observations);
      for (const league of snapshot.leagues) {
        for (const event of league.events) {
          refs.set(event.eventID, {
            eventID: event.eventID,
            sportID: league.sportID,
            leagueID: league.leagueID,
            startsAtMs: event.startsAt.getTime(),
          });
        }
      }
    }
  }
  // History compares each snapshot with the previous one of its (event, bookmaker, source), so each
  // event's snapshots go oldest first; grouping them by event keeps every book's whole replay in one
  // call, so history persists each book's state once rather than once per call.
  observations.sort((a, b) => a.eventID.localeCompare(b.eventID) || a.observedAtMs - b.observedAtMs);

  const finished: RankedSnapshot[] = [];
  for (const source of sources) {
    if (source.fetchResults)
      finished.push({ sourceID: source.id, rank: source.rank, snapshot: await source.fetchResults(from, now) });
  }
  const results = normaliseCycle(finished, { fairOddsBookmakers });
  for (const ref of results.eventRefs) refs.set(ref.eventID, ref);
  return {
    events: results.events,
    eventRefs: [...refs.values()],
    observations,
    catalogue: results.catalogue,
    rejectedQuotes: results.rejectedQuotes,
  };
}

/**
 * Runs the backfill unless the events service already applied a cycle. Keeps flushing until
 * every write landed (the service stays NOT_SERVING meanwhile) or `signal` aborts. With
 * `firstCycleAt`, the first live cycle's quotes travel in the same history call as the backfill:
 * history then looks every event up once, while its log is still empty.
 */
export async function runBackfill(
  deps: {
    sources: FeedSource[];
    sink: CycleSink;
    runner: CycleRunner;
    logger: Logger;
    fairOddsBookmakers: readonly string[];
  },
  options: { from: Date; now: Date; firstCycleAt?: Date; retryDelayMs?: number; signal?: AbortSignal },
): Promise<BackfillReport> {
  const { logger } = deps;
  if ((await deps.sink.lastAppliedCycleAtMs()) > 0) {
    logger.info("events already applied a cycle; backfill skipped");
    return { skipped: true, firstCycleWritten: false, snapshots: 0, quotes: 0, events: 0 };
  }
  const started = Date.now();
  const content = await buildBackfill(deps.sources, options.from, options.now, deps.fairOddsBookmakers);
  const firstCycle = options.firstCycleAt ? await deps.runner.buildCycle(options.firstCycleAt) : undefined;
  if (firstCycle) {
    content.observations.push(...firstCycle.observations);
    const known = new Set(content.eventRefs.map((r) => r.eventID));
    content.eventRefs.push(...firstCycle.eventRefs.filter((r) => !known.has(r.eventID)));
  }
  const report: BackfillReport = {
    skipped: false,
    firstCycleWritten: firstCycle !== undefined,
    snapshots: content.observations.length,
    quotes: content.observations.reduce((sum, o) => sum + o.quotes.length, 0),
    events: content.events.length,
  };
  logger.info(
    { ...report, from: options.from.toISOString(), buildMs: Date.now() - started },
    "backfill built; writing",
  );
  deps.runner.enqueue(`backfill-${cycleIdAt(options.from)}`, options.now.getTime(), content, BACKFILL_BATCH_LIMITS);
  if (firstCycle && options.firstCycleAt) {
    const at = options.firstCycleAt;
    deps.runner.enqueue(cycleIdAt(at), at.getTime(), { ...firstCycle, observations: [] });
  }
  for (let attempt = 1; ; attempt++) {
    // Events last: their applied cycle is what tells a restarted ingest the backfill is done.
    const pending = await deps.runner.flush({ eventsLast: true });
    if (pending.history + pending.events + pending.catalogue === 0) break;
    if (options.signal?.aborted) throw new Error("backfill aborted before every write landed");
    logger.warn({ pending, attempt }, "backfill writes pending; retrying");
    await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 2000));
  }
  logger.info({ ...report, ms: Date.now() - started }, "backfill written");
  return report;
}
