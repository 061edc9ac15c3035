// First start: replays the sources' past into history (sparser than live capture) and writes the
// final state of events that are no longer in the live window. Deterministic, so safe to redo;
// skipped once the events service has applied a cycle, which it is given only after history and
// catalogue took every write (a process killed before then redoes it on restart: nothing lost).
import type { Logger } from "@odds/platform";
import { BACKFILL_BATCH_LIMITS, cycleIdAt, type AppliedCycle, type CycleRunner, type CycleSink } from "./cycle-runner";
import type { BookObservation, CycleContent, EventRef, EventState, SideOdds } from "./domain/model";
import { normaliseCycle, observeSnapshot, type RankedSnapshot } from "./domain/normalise";
import type { FeedEvent, FeedLeague, FeedSource } from "./sources/feed-source";

/** Capture began on 2026-08-14 (the contract's history rule 4). */
export const CAPTURE_START = new Date("2026-08-14T00:00:00Z");
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
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

/** Per event, the sides it was last priced on in the replay (prices included): its market book once it has ended. */
export type PricedSides = Map<string, Record<string, SideOdds>>;

/** One event as a source delivered it at one replayed instant. */
interface ReplayedEvent {
  source: FeedSource;
  league: FeedLeague;
  event: FeedEvent;
}

/**
 * Normalises replayed events one state per event (their sources ranked as in a cycle), each from its
 * own snapshots alone: its prices' and its state's times are those of the looks it was priced at,
 * whatever else the replay held (the same for a window as for the whole backfill).
 */
function normaliseReplayed(replayed: Iterable<ReplayedEvent>, fairOddsBookmakers: readonly string[]): EventState[] {
  const byEvent = new Map<string, ReplayedEvent[]>();
  for (const entry of replayed) {
    const list = byEvent.get(entry.event.eventID) ?? [];
    list.push(entry);
    byEvent.set(entry.event.eventID, list);
  }
  return [...byEvent.values()].flatMap((entries) => {
    const snapshots: RankedSnapshot[] = entries.map(({ source, league, event }) => ({
      sourceID: source.id,
      rank: source.rank,
      snapshot: { sourceID: source.id, leagues: [{ ...league, events: [event] }] },
    }));
    return normaliseCycle(snapshots, { fairOddsBookmakers }).events;
  });
}

const FINISHED: ReadonlySet<FeedEvent["state"]> = new Set(["ENDED", "FINAL"]);

/**
 * Finished events written only in their final state carry the sides they were priced on before
 * their quotes closed, so the events service keeps them in their market book and grades them.
 */
export function withPricedSides(events: EventState[], pricedSides: PricedSides): void {
  for (const event of events) {
    const priced = pricedSides.get(event.eventID);
    if (priced && Object.keys(event.odds).length === 0 && (event.status.ended || event.status.cancelled))
      event.closedOdds = priced;
  }
}

/** What the replay covers: observations in [from, now), each event at the depth its kickoff calls for. */
export interface ReplaySettings {
  from: Date;
  now: Date;
  /** Events that kicked off in the last this many days are replayed with every market, observed densely. */
  fullDays?: number;
  /** Kickoff window of one replay request (tests pass Infinity: the whole replay in one piece). */
  windowMs?: number;
}

/**
 * The replay's kickoff windows: 2 hours hold a few events of all leagues, so a piece stays small
 * however long or dense the backfill (one fully observed event is ~25 looks of ~1,600 quotes from two
 * sources; 6-hour windows peaked at 62,000 quotes a piece and ~100 MB more heap, docs/performance.md "Backfill
 * streamed").
 */
const REPLAY_WINDOW_MS = 2 * HOUR_MS;
/** Windows step past `now` this far (events kicking off soon were observed at their markets' opening), then one open window. */
const REPLAY_AHEAD_MS = 7 * DAY_MS;

/** One kickoff window of the replay: every observation of its events, and what the events write keeps of them. */
export interface ReplayPiece {
  /** Snapshots grouped by event, each event's oldest first (history diffs each book's against its previous one). */
  observations: BookObservation[];
  eventRefs: EventRef[];
  pricedSides: PricedSides;
  /** The window's events as the replay first saw them finished: the result as first published. */
  firstResults: EventState[];
}

/**
 * The backfill's replay, streamed: kickoff window by window, every source's snapshots of the events
 * that kick off in the window. An event's whole replay lies in one window, so each piece holds every
 * snapshot of its events and the concatenated pieces give each book the snapshots a single replay
 * would (the same ticks); only one window is in memory at a time.
 */
export async function* replayBackfill(
  sources: FeedSource[],
  settings: ReplaySettings,
  fairOddsBookmakers: readonly string[],
): AsyncGenerator<ReplayPiece> {
  const { from, now } = settings;
  const sparseBefore = new Date(now.getTime() - MAIN_MARKETS_DAYS * DAY_MS);
  const fullSince = settings.fullDays ? new Date(now.getTime() - settings.fullDays * DAY_MS) : undefined;
  const windowMs = settings.windowMs ?? REPLAY_WINDOW_MS;
  const lastWindowMs = now.getTime() + REPLAY_AHEAD_MS;
  for (let startsFromMs = from.getTime(); startsFromMs < Number.POSITIVE_INFINITY;) {
    const next = startsFromMs + windowMs;
    const startsBeforeMs = next >= lastWindowMs ? Number.POSITIVE_INFINITY : next;
    const request = { from, to: now, startsFromMs, startsBeforeMs, sparseBefore, fullSince };
    const observations: BookObservation[] = [];
    const refs = new Map<string, EventRef>();
    const lastPriced = new Map<string, ReplayedEvent>();
    const firstFinished = new Map<string, ReplayedEvent>();
    for (const source of sources) {
      if (!source.replay) continue;
      for (const snapshot of await source.replay(request)) {
        for (const observation of observeSnapshot({ sourceID: source.id, rank: source.rank, snapshot }).observations)
          observations.push(observation);
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
    startsFromMs = startsBeforeMs;
    if (observations.length === 0 && firstFinished.size === 0) continue;
    // History compares each snapshot with the previous one of its (event, bookmaker, source), so each
    // event's snapshots go oldest first; grouping them by event keeps every book's replay together.
    observations.sort((a, b) => a.eventID.localeCompare(b.eventID) || a.observedAtMs - b.observedAtMs);
    const pricedSides: PricedSides = new Map(
      normaliseReplayed(lastPriced.values(), fairOddsBookmakers).map((event) => [event.eventID, event.odds]),
    );
    const firstResults = normaliseReplayed(firstFinished.values(), fairOddsBookmakers);
    withPricedSides(firstResults, pricedSides);
    yield { observations, eventRefs: [...refs.values()], pricedSides, firstResults };
  }
}

/** The final state of every finished event outside the live window, with the sides it was priced on. */
export async function backfillResults(
  sources: FeedSource[],
  from: Date,
  now: Date,
  fairOddsBookmakers: readonly string[],
  pricedSides: PricedSides,
): Promise<CycleContent> {
  const finished: RankedSnapshot[] = [];
  for (const source of sources) {
    if (source.fetchResults)
      finished.push({ sourceID: source.id, rank: source.rank, snapshot: await source.fetchResults(from, now) });
  }
  const results = normaliseCycle(finished, { fairOddsBookmakers });
  withPricedSides(results.events, pricedSides);
  return results;
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
  // `#k` alone is a call sent while its cycle was still built: never the last one (that one says `#n/n`).
  const batch = /#(\d+)(?:\/(\d+))?$/.exec(last.cycleID);
  return !batch || batch[1] === batch[2];
}

/**
 * Runs the backfill unless it finished before (`backfillFinished`). The replay streams: each window's
 * snapshots go to history in calls of the backfill's size as they fill (the next window is replayed
 * while a call is in flight), so ingest holds a window and a call, not the backfill; what stays is one
 * final state and one priced market book per finished event. Then the finished events and catalogue,
 * and the first live cycle (with `firstCycleAt`), built and written event by event as a regular cycle
 * is, under the backfill's id: its quotes after the replay's, each finished event given the sides it
 * was priced on, a corrected event's first result written before its final state. The events call
 * whose last batch marks the backfill done goes last, once history and catalogue took everything.
 * Keeps flushing until every write landed (the service stays NOT_SERVING meanwhile) or `signal` aborts.
 */
export async function runBackfill(
  deps: {
    sources: FeedSource[];
    sink: CycleSink;
    runner: CycleRunner;
    logger: Logger;
    fairOddsBookmakers: readonly string[];
  },
  options: {
    /** What events applied last (the sink's `lastAppliedCycle`): whether the backfill finished. */
    lastApplied: AppliedCycle;
    from: Date;
    now: Date;
    firstCycleAt?: Date;
    /** `ReplaySettings.fullDays`: the last days replayed with every market (the benchmark's deep history). */
    fullDays?: number;
    retryDelayMs?: number;
    signal?: AbortSignal;
  },
): Promise<BackfillReport> {
  const { logger, runner } = deps;
  const last = options.lastApplied;
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
  const report: BackfillReport = { skipped: false, firstCycleWritten: false, snapshots: 0, quotes: 0, events: 0 };
  const writeAll = () => flushUntilWritten(runner, logger, options);

  const pricedSides: PricedSides = new Map();
  const firstResults = new Map<string, EventState>();
  const replay = new HistoryStream(runner, () => flushUntilWritten(runner, logger, { ...options, historyOnly: true }));
  let loggedAt = started;
  for await (const piece of replayBackfill(
    deps.sources,
    { from: options.from, now: options.now, fullDays: options.fullDays },
    deps.fairOddsBookmakers,
  )) {
    for (const [eventID, sides] of piece.pricedSides) pricedSides.set(eventID, sides);
    for (const event of piece.firstResults) firstResults.set(event.eventID, event);
    report.snapshots += piece.observations.length;
    for (const observation of piece.observations) report.quotes += observation.quotes.length;
    await replay.add(piece.eventRefs, piece.observations);
    if (Date.now() - loggedAt >= 10_000) {
      loggedAt = Date.now();
      logger.info({ ...report, ms: loggedAt - started, heapMB: heapMB() }, "backfill replay streaming to history");
    }
  }
  await replay.end();

  const results = await backfillResults(deps.sources, options.from, options.now, deps.fairOddsBookmakers, pricedSides);
  report.events = results.events.length;
  logger.info(
    { ...report, from: options.from.toISOString(), buildMs: Date.now() - started, heapMB: heapMB() },
    "backfill replayed; writing the finished events and the first live cycle",
  );
  const corrections = new FirstResultWrites(deps, options, firstResults);
  await corrections.writeBefore(results.events);
  const cycleID = backfillCycleId(options.from);
  runner.enqueue(cycleID, options.now.getTime(), { ...results, observations: [] }, BACKFILL_BATCH_LIMITS);
  if (options.firstCycleAt) {
    // Events go under the backfill's id, whose last call is its done-marker: written once history and catalogue took everything.
    const cycle = await runner.runCycle(options.firstCycleAt, {
      cycleID,
      eventsLast: true,
      beforeQueue: async (event) => {
        withPricedSides([event], pricedSides);
        await corrections.writeBefore([event]);
      },
    });
    report.firstCycleWritten = cycle.fresh;
    report.snapshots += cycle.snapshots;
    report.quotes += cycle.quotes;
  }
  pricedSides.clear();
  // Events last: their applied cycle is what tells a restarted ingest the backfill is done.
  await writeAll();
  logger.info({ ...report, firstResults: corrections.written, ms: Date.now() - started }, "backfill written");
  return report;
}

function heapMB(): number {
  return Math.round(process.memoryUsage().heapUsed / 1_048_576);
}

/** Flushes the runner (events last, or history alone) until nothing is pending; throws once `signal` aborts. */
async function flushUntilWritten(
  runner: CycleRunner,
  logger: Logger,
  options: { retryDelayMs?: number; signal?: AbortSignal; historyOnly?: boolean },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const pending = await runner.flush({ eventsLast: true, historyOnly: options.historyOnly });
    if (pending.history + pending.events + pending.catalogue === 0) return;
    if (options.signal?.aborted) throw new Error("backfill aborted before every write landed");
    logger.warn({ pending, attempt }, "backfill writes pending; retrying");
    await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 2000));
  }
}

/**
 * The replay's snapshots on their way to history: gathered until they fill a backfill call, then
 * queued and written while the next window is replayed; at most one write in flight, so ingest holds
 * at most a call being written, one filling, and the window being replayed.
 */
class HistoryStream {
  private refs = new Map<string, EventRef>();
  private observations: BookObservation[] = [];
  private quotes = 0;
  private writing: Promise<void> = Promise.resolve();
  /** Why the write in flight failed (the backfill aborted): thrown at the next step. */
  private failure: { err: unknown } | undefined;

  constructor(
    private readonly runner: CycleRunner,
    private readonly writeHistory: () => Promise<void>,
  ) {}

  async add(refs: EventRef[], observations: BookObservation[]): Promise<void> {
    for (const ref of refs) this.refs.set(ref.eventID, ref);
    for (const observation of observations) {
      this.observations.push(observation);
      this.quotes += observation.quotes.length;
    }
    const limits = BACKFILL_BATCH_LIMITS;
    if (this.observations.length >= limits.snapshotsPerCall || this.quotes >= limits.quotesPerCall) await this.send();
  }

  /** Sends what is left and waits until history took every call. */
  async end(): Promise<void> {
    await this.send();
    await this.landed();
  }

  private async send(): Promise<void> {
    // One write in flight: the previous must land (or the backfill abort) before the next is queued.
    await this.landed();
    if (this.observations.length === 0) return;
    this.runner.enqueueHistory([...this.refs.values()], this.observations, BACKFILL_BATCH_LIMITS);
    this.refs = new Map();
    this.observations = [];
    this.quotes = 0;
    // Caught here and rethrown by the next step: a write failing while the next window is replayed is no unhandled rejection.
    this.writing = this.writeHistory().catch((err: unknown) => {
      this.failure = { err };
    });
  }

  private async landed(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure.err;
  }
}

/**
 * Results the source corrected after first publishing them: the first result is written before
 * the final state is queued, so the events service settles on it and then applies the correction
 * visibly, as it would have live. Each is written once, retried until written (or `signal` aborts),
 * like the rest of the backfill.
 */
class FirstResultWrites {
  /** First results written so far (one call per `writeBefore` that had any). */
  written = 0;
  private calls = 0;

  constructor(
    private readonly deps: { sink: CycleSink; logger: Logger },
    private readonly options: { from: Date; now: Date; retryDelayMs?: number; signal?: AbortSignal },
    /** The replay's first result of each finished event; an entry goes once written. */
    private readonly firstResults: Map<string, EventState>,
  ) {}

  /** Writes the first results of those of `events` (final states) whose result was corrected. */
  async writeBefore(events: readonly EventState[]): Promise<void> {
    const first = events.flatMap((event) => {
      const result = event.resultsCorrectedAtMs > 0 ? this.firstResults.get(event.eventID) : undefined;
      return result && result.resultsCorrectedAtMs === 0 ? [result] : [];
    });
    const perCall = BACKFILL_BATCH_LIMITS.eventsPerCall;
    for (let i = 0; i < first.length; i += perCall) {
      const call = first.slice(i, i + perCall);
      this.calls += 1;
      const cycleID = `${FIRST_RESULTS_CYCLE_PREFIX}${cycleIdAt(this.options.from)}#${this.calls}`;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.deps.sink.applyEvents(cycleID, this.options.now.getTime(), call);
          break;
        } catch (err) {
          if (this.options.signal?.aborted) throw new Error("backfill aborted before every write landed");
          this.deps.logger.warn({ err, attempt }, "backfill first results not written; retrying");
          await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs ?? 2000));
        }
      }
      for (const result of call) this.firstResults.delete(result.eventID);
      this.written += call.length;
    }
  }
}
