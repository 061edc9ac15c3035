// First start: replays the sources' past into history (sparser than live capture) and writes the
// final state of events that are no longer in the live window. Deterministic, so safe to redo;
// skipped once the events service has applied a cycle, which it is given only after history and
// catalogue took every write (a process killed before then redoes it on restart: nothing lost).
import type { Logger } from "@odds/platform";
import { BACKFILL_BATCH_LIMITS, cycleIdAt, type CycleRunner, type CycleSink } from "./cycle-runner";
import type { BookObservation, CycleContent, EventRef, EventState, SideOdds } from "./domain/model";
import { normaliseCycle, observeSnapshot, type RankedSnapshot } from "./domain/normalise";
import type { FeedEvent, FeedLeague, FeedSource } from "./sources/feed-source";

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

export interface BackfillContent extends CycleContent {
  /** Per event, the sides it was last priced on in the replay (prices included): its market book once it has ended. */
  pricedSides: Map<string, Record<string, SideOdds>>;
  /** Per event, its state when the replay first saw it finished: the result as first published. */
  firstResults: Map<string, EventState>;
}

/** One event as a source delivered it at one replayed instant. */
interface ReplayedEvent {
  source: FeedSource;
  league: FeedLeague;
  event: FeedEvent;
}

/** Normalises replayed events one state per event (their sources ranked as in a cycle). */
function normaliseReplayed(replayed: Iterable<ReplayedEvent>, fairOddsBookmakers: readonly string[]): EventState[] {
  const bySource = new Map<FeedSource, Map<string, FeedLeague>>();
  for (const { source, league, event } of replayed) {
    const leagues = bySource.get(source) ?? new Map<string, FeedLeague>();
    bySource.set(source, leagues);
    const entry = leagues.get(league.leagueID) ?? { ...league, events: [] };
    leagues.set(league.leagueID, entry);
    entry.events.push(event);
  }
  const snapshots: RankedSnapshot[] = [...bySource].map(([source, leagues]) => ({
    sourceID: source.id,
    rank: source.rank,
    snapshot: { sourceID: source.id, leagues: [...leagues.values()] },
  }));
  return normaliseCycle(snapshots, { fairOddsBookmakers }).events;
}

const FINISHED: ReadonlySet<FeedEvent["state"]> = new Set(["ENDED", "FINAL"]);

/**
 * Finished events written only in their final state carry the sides they were priced on before
 * their quotes closed, so the events service keeps them in their market book and grades them.
 */
export function withPricedSides(events: EventState[], pricedSides: Map<string, Record<string, SideOdds>>): void {
  for (const event of events) {
    const priced = pricedSides.get(event.eventID);
    if (priced && Object.keys(event.odds).length === 0 && (event.status.ended || event.status.cancelled))
      event.closedOdds = priced;
  }
}

/** Everything the backfill writes, built without writing anything. */
export async function buildBackfill(
  sources: FeedSource[],
  from: Date,
  now: Date,
  fairOddsBookmakers: readonly string[],
): Promise<BackfillContent> {
  const sparseBefore = new Date(now.getTime() - MAIN_MARKETS_DAYS * DAY_MS);
  const observations: BookObservation[] = [];
  const refs = new Map<string, EventRef>();
  const lastPriced = new Map<string, ReplayedEvent>();
  const firstFinished = new Map<string, ReplayedEvent>();
  for (const source of sources) {
    if (!source.replay) continue;
    for (const snapshot of await source.replay(from, now, sparseBefore)) {
      observations.push(...observeSnapshot({ sourceID: source.id, rank: source.rank, snapshot }).observations);
      for (const league of snapshot.leagues) {
        for (const event of league.events) {
          // Snapshots come oldest first: the last priced state and the first finished one win.
          const key = `${source.id}|${event.eventID}`;
          if (event.books.some((book) => book.quotes.length > 0)) lastPriced.set(key, { source, league, event });
          if (FINISHED.has(event.state) && !firstFinished.has(key)) firstFinished.set(key, { source, league, event });
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
  const pricedSides = new Map(
    normaliseReplayed(lastPriced.values(), fairOddsBookmakers).map((event) => [event.eventID, event.odds]),
  );
  const firstResults = new Map(
    normaliseReplayed(firstFinished.values(), fairOddsBookmakers).map((event) => [event.eventID, event]),
  );
  withPricedSides(results.events, pricedSides);
  withPricedSides([...firstResults.values()], pricedSides);
  return {
    pricedSides,
    firstResults,
    events: results.events,
    eventRefs: [...refs.values()],
    observations,
    catalogue: results.catalogue,
    rejectedQuotes: results.rejectedQuotes,
  };
}

/**
 * Every events write of the backfill carries an id with this prefix (a regular cycle's id is
 * `cycle-<instant>`), so whether the backfill finished is read from the backfill's own writes alone.
 */
export const BACKFILL_CYCLE_PREFIX = "backfill-";
/** The corrected events' first results, the backfill's first events write, carry this cycle id prefix. */
export const FIRST_RESULTS_CYCLE_PREFIX = `${BACKFILL_CYCLE_PREFIX}first-results-`;

/** The id of the backfill's writes: its history, catalogue and events, the first live cycle's events with them. */
export function backfillCycleId(from: Date): string {
  return `${BACKFILL_CYCLE_PREFIX}${cycleIdAt(from)}`;
}

/**
 * Whether the backfill finished, from the cycle events applied last. The backfill's events are
 * written after every other backfill write (events last), in batches `backfill-…#k/n` written in
 * order; a last applied cycle of first results, or a backfill batch short of the last, means the
 * backfill was cut short. Regular cycles run only once the backfill is written, so a regular
 * cycle's id marks it done, even one cut after batch k of n (the next cycle writes what it missed).
 */
export function backfillFinished(last: { atMs: number; cycleID: string }): boolean {
  if (last.atMs === 0) return false;
  if (!last.cycleID.startsWith(BACKFILL_CYCLE_PREFIX)) return true;
  if (last.cycleID.startsWith(FIRST_RESULTS_CYCLE_PREFIX)) return false;
  const batch = /#(\d+)\/(\d+)$/.exec(last.cycleID);
  return !batch || batch[1] === batch[2];
}

/**
 * Runs the backfill unless it finished before (`backfillFinished`). Keeps flushing until every write
 * landed (the service stays NOT_SERVING meanwhile) or `signal` aborts. With `firstCycleAt`, the first
 * live cycle's quotes travel in the same history call as the backfill (history then looks every
 * event up once, while its log is still empty) and its events in the backfill's events write.
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
  const last = await deps.sink.lastAppliedCycle();
  if (backfillFinished(last)) {
    logger.info(
      { lastCycleID: last.cycleID },
      "events applied the backfill's last write or a later cycle; backfill skipped",
    );
    return { skipped: true, firstCycleWritten: false, snapshots: 0, quotes: 0, events: 0 };
  }
  // Every write of the backfill is idempotent (ids, cycle ids), so an unfinished one is simply written again.
  if (last.atMs > 0) logger.warn({ lastCycleID: last.cycleID }, "events hold an unfinished backfill; writing it again");
  const started = Date.now();
  const content = await buildBackfill(deps.sources, options.from, options.now, deps.fairOddsBookmakers);
  const firstCycle = options.firstCycleAt ? await deps.runner.buildCycle(options.firstCycleAt) : undefined;
  if (firstCycle) {
    withPricedSides(firstCycle.events, content.pricedSides);
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
  await writeFirstResults(deps, options, content, firstCycle?.events ?? []);
  const cycleID = backfillCycleId(options.from);
  deps.runner.enqueue(cycleID, options.now.getTime(), content, BACKFILL_BATCH_LIMITS);
  if (firstCycle && options.firstCycleAt) {
    // Under the backfill's id too: events go in one write with the backfill's, whose last batch is its done-marker.
    deps.runner.enqueue(cycleID, options.firstCycleAt.getTime(), { ...firstCycle, observations: [] });
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

/**
 * Results the source corrected after first publishing them: the first result is written before
 * the final state, so the events service settles on it and then applies the correction visibly,
 * as it would have live. Retried until written (or `signal` aborts), like the rest of the backfill.
 */
async function writeFirstResults(
  deps: { sink: CycleSink; logger: Logger },
  options: { from: Date; now: Date; retryDelayMs?: number; signal?: AbortSignal },
  content: BackfillContent,
  current: EventState[],
): Promise<void> {
  const corrected = new Set(
    [...content.events, ...current].filter((e) => e.resultsCorrectedAtMs > 0).map((e) => e.eventID),
  );
  const first = [...content.firstResults.values()].filter(
    (e) => corrected.has(e.eventID) && e.resultsCorrectedAtMs === 0,
  );
  const perCall = BACKFILL_BATCH_LIMITS.eventsPerCall;
  for (let i = 0; i < first.length; i += perCall) {
    const cycleID = `${FIRST_RESULTS_CYCLE_PREFIX}${cycleIdAt(options.from)}#${i / perCall + 1}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await deps.sink.applyEvents(cycleID, options.now.getTime(), first.slice(i, i + perCall));
        break;
      } catch (err) {
        if (options.signal?.aborted) throw new Error("backfill aborted before every write landed");
        deps.logger.warn({ err, attempt }, "backfill first results not written; retrying");
        await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 2000));
      }
    }
  }
  if (first.length > 0) deps.logger.info({ events: first.length }, "backfill wrote first results of corrected events");
}
