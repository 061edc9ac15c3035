// One ingest cycle: fetch every source → normalise and price → write events, quotes and catalogue.
// Writes go through an outbox: what could not be written stays queued (in order) and is retried
// on the next cycle, so a failure is never silently lost and history never sees quotes out of order.
import type { Logger } from "@odds/platform";
import type { BookObservation, CatalogueContent, CycleContent, EventRef, EventState } from "./domain/model";
import {
  CatalogueBuilder,
  collectCycle,
  mergeSources,
  normaliseEvent,
  streamOf,
  type CycleEvents,
  type RankedStream,
} from "./domain/normalise";
import { contentFingerprint, observationStamps, type EventStamps } from "./domain/observation-stamps";
import type { FeedSnapshot, FeedSource, NameMatching, StreamedSnapshot } from "./sources/feed-source";
import { matchAcrossSources, NameMatcher, type CatalogueNames } from "./sources/matching/name-matcher";

/**
 * Calls waiting for their turn, per target, while a cycle is built: beyond them the build waits for
 * the writes, so ingest holds a few calls of a cycle rather than all of it.
 */
const WAITING_CALLS_WHILE_BUILDING = 1;

/** The three downstream writes; one call sends exactly one RPC. */
export interface CycleSink {
  /**
   * Whole events, and events carried unchanged as their observation times alone. Answers the
   * restamped events the service does not hold (its store was reset), to be sent whole.
   */
  applyEvents(
    cycleID: string,
    observedAtMs: number,
    events: EventState[],
    restamped?: readonly EventStamps[],
  ): Promise<{ unknownEventIDs: string[] }>;
  recordQuotes(refs: EventRef[], observations: BookObservation[]): Promise<void>;
  applyCatalogue(cycleID: string, catalogue: CatalogueContent): Promise<void>;
  /** The cycle events applied last (atMs 0 = never): the backfill marker, and the instant no cycle may precede. */
  lastAppliedCycle(): Promise<AppliedCycle>;
}

/** The cycle the events service applied last, as its feed status tells. */
export interface AppliedCycle {
  /** When events applied it (Unix ms; 0: never). */
  atMs: number;
  cycleID: string;
  /** The instant its prices were observed at: the cycle's own instant. */
  observedAtMs: number;
}

export type WriteTarget = "events" | "history" | "catalogue";

export interface CycleObserver {
  writeFailed(target: WriteTarget): void;
  pending(target: WriteTarget, count: number): void;
  /** What one source's fetch left out or could not match this cycle, by reason. */
  upstreamTally?(sourceID: string, tally: Record<string, number>): void;
}

export interface BatchLimits {
  eventsPerCall: number;
  /**
   * Bookmaker prices (main and alternate lines) per events call: a fully priced event is ~0.3 KB a
   * price, so 40 000 keep a call near 12 MB, well inside gRPC's 64 MB message bound (200 deep events
   * made one call of 147 MB).
   */
  pricesPerCall: number;
  snapshotsPerCall: number;
  quotesPerCall: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = {
  eventsPerCall: 200,
  pricesPerCall: 40_000,
  snapshotsPerCall: 2000,
  quotesPerCall: 30_000,
};

/**
 * Backfill calls to history: a call's quotes bound history's peak memory (each is decoded, diffed into
 * ticks and encoded into buckets at once; calls of 120 000 quotes, chosen while every FerretDB look-up
 * scanned its collection, raised its peak RSS by ~50 MB on a 7-day dataset). With look-ups by `_id` index, calls of
 * 30 000 quotes (the regular cycle's bound) cost no more wall time (docs/performance.md "History memory").
 */
export const BACKFILL_BATCH_LIMITS: BatchLimits = {
  eventsPerCall: 200,
  pricesPerCall: 40_000,
  snapshotsPerCall: 6000,
  quotesPerCall: 30_000,
};

export interface CycleReport {
  cycleID: string;
  /** false when no source had written since the last cycle, so nothing new was applied. */
  fresh: boolean;
  events: number;
  /** Events whose content (observation times aside) differed from what events last applied: sent whole. */
  eventsChanged: number;
  snapshots: number;
  quotes: number;
  rejectedQuotes: number;
  /** Per source: upstream entries left out or left unmatched, by reason (only sources that had any). */
  upstream: Record<string, Record<string, number>>;
  /** Writes still queued after this cycle's flush (0 when everything was written). */
  pending: Record<WriteTarget, number>;
  /**
   * Where the cycle's wall time went (ms): fetching the sources (the simulated feed generates each
   * event as it is read), normalising and pricing, comparing each event with what events hold, each
   * summed over the cycle's events; and each target's writes, from the start of the build (a cycle is
   * written while it is built; the targets run side by side).
   */
  phaseMs: CyclePhases;
}

/** How a cycle is written when it is not a regular one (the backfill's first live cycle). */
export interface CycleOptions {
  /** The cycle's id (default `cycleIdAt(at)`): the backfill writes its first cycle under its own. */
  cycleID?: string;
  /**
   * Called with each built event before it is queued for events: the backfill gives a finished event
   * the sides it was priced on, and writes a corrected event's first result before its final state.
   */
  beforeQueue?: (event: EventState) => Promise<void>;
  /**
   * The last events call (`#n/n`) only once history and catalogue took everything: the backfill's
   * done-marker. The calls before it go as they fill, as in any cycle (a `#k` never marks it done).
   */
  eventsLast?: boolean;
}

export interface CyclePhases {
  fetch: number;
  normalise: number;
  fingerprint: number;
  writes: Record<WriteTarget, number>;
}

/** One source's fetch: a stream, or its snapshot whole (name matching reads it whole). */
interface FetchedSource {
  sourceID: string;
  rank: number;
  matching?: NameMatching;
  stream?: StreamedSnapshot;
  snapshot?: FeedSnapshot;
}

interface HistoryBatch {
  refs: EventRef[];
  observations: BookObservation[];
}

/** Deterministic cycle id: the same instant is the same cycle, so a replay is recognised downstream. */
export function cycleIdAt(at: Date): string {
  return `cycle-${at.toISOString()}`;
}

export class CycleRunner {
  private readonly historyQueue: HistoryBatch[] = [];
  private pendingEvents = new Map<string, { event: EventState; fingerprint: string }>();
  /** Events carried unchanged: only their observation times go to the events service. */
  private pendingRestamps = new Map<string, EventStamps>();
  /** eventID -> content fingerprint of the event as the events service last applied it (lost on restart: all resent). */
  private readonly appliedContent = new Map<string, string>();
  private pendingCatalogue: { cycleID: string; content: CatalogueContent } | undefined;
  private pendingEventsCycle: { cycleID: string; observedAtMs: number } | undefined;
  private readonly matcher: NameMatcher;
  private lastUpstreamTally: Record<string, Record<string, number>> = {};
  /** Newest source write the last fetch saw, and the newest one a cycle has carried downstream. */
  private builtFreshestMs = 0;
  private writtenFreshestMs = 0;
  /** The last flush's per-target write times (ms). */
  private writePhases: Record<WriteTarget, number> = { events: 0, history: 0, catalogue: 0 };

  constructor(
    private readonly deps: {
      sources: FeedSource[];
      sink: CycleSink;
      logger: Logger;
      fairOddsBookmakers: readonly string[];
      observer?: CycleObserver;
      limits?: BatchLimits;
      /** Where sources that name teams and players find the IDs already persisted. */
      catalogueNames?: CatalogueNames;
    },
  ) {
    this.matcher = new NameMatcher(deps.catalogueNames);
  }

  private get limits(): BatchLimits {
    return this.deps.limits ?? DEFAULT_BATCH_LIMITS;
  }

  /** Fetches, normalises and prices every source at `at`, whole: what `runCycle` writes, collected. */
  async buildCycle(at: Date): Promise<CycleContent> {
    return collectCycle(await this.fetchCycle(at), { fairOddsBookmakers: this.deps.fairOddsBookmakers });
  }

  /**
   * Every source's snapshot at `at`, merged event by event. A source that fails is left out (its
   * leagues go stale). Sources that can stream do, unless some source matches names (matching reads
   * every source's events at once).
   */
  private async fetchCycle(at: Date): Promise<CycleEvents> {
    const named = this.deps.sources.some((source) => source.nameMatching);
    const fetched = await Promise.all(
      this.deps.sources.map(async (source): Promise<FetchedSource | undefined> => {
        try {
          const ranked = { sourceID: source.id, rank: source.rank, matching: source.nameMatching };
          if (!named && source.streamSnapshot) return { ...ranked, stream: source.streamSnapshot(at) };
          return { ...ranked, snapshot: await source.fetchSnapshot(at) };
        } catch (err) {
          this.deps.logger.error(
            { err, sourceID: source.id },
            "source fetch failed; its leagues go stale until it recovers",
          );
          return undefined;
        }
      }),
    );
    const present = fetched.filter((s) => s !== undefined);
    const idSourceFailed = this.deps.sources.some((source, i) => !source.nameMatching && fetched[i] === undefined);
    const whole = await matchAcrossSources(
      this.matcher,
      present.flatMap((s) => (s.snapshot ? [{ ...s, snapshot: s.snapshot }] : [])),
      at.getTime(),
      idSourceFailed,
      (leagueID, err) =>
        this.deps.logger.error(
          { err, leagueID },
          "catalogue names unreadable; matching with the last read (a league never read is held back)",
        ),
    );
    const matched = new Map(whole.map(({ sourceID, snapshot }) => [sourceID, snapshot]));
    const streams: RankedStream[] = present.flatMap(({ sourceID, rank, stream }) => {
      const snapshot = matched.get(sourceID);
      const events = stream ?? (snapshot && streamOf(snapshot));
      return events ? [{ sourceID, rank, stream: events }] : [];
    });
    this.lastUpstreamTally = {};
    this.builtFreshestMs = Math.max(
      0,
      ...streams.flatMap(({ stream }) => stream.snapshot.leagues.map((l) => l.lastWriteAt.getTime())),
    );
    for (const { sourceID, stream } of streams) {
      const { tally } = stream.snapshot;
      if (!tally || Object.keys(tally).length === 0) continue;
      this.lastUpstreamTally[sourceID] = tally;
      this.deps.observer?.upstreamTally?.(sourceID, tally);
    }
    return mergeSources(streams);
  }

  /**
   * Builds the cycle at `at` event by event and writes it as it goes: each event is normalised,
   * compared with what events hold and queued; history's and events' calls go as they fill, while
   * the next events are built (docs/performance.md "Ingest memory").
   */
  async runCycle(at: Date, options: CycleOptions = {}): Promise<CycleReport> {
    const cycleID = options.cycleID ?? cycleIdAt(at);
    const started = performance.now();
    const cycle = await this.fetchCycle(at);
    // No source has written since the last cycle (all failed or quiet; real sources keep their last
    // good snapshot): nothing new to apply. Events then stop advancing their last cycle, so /health
    // says the pipeline is stale, and each event's info.stale follows its own source write time.
    const fresh = this.builtFreshestMs > this.writtenFreshestMs;
    if (!fresh) {
      this.deps.logger.warn(
        { cycleID, newestSourceWriteAtMs: this.builtFreshestMs },
        "no source wrote since the last cycle; nothing applied",
      );
    }
    const phases = { fetch: performance.now() - started, normalise: 0, fingerprint: 0 };
    const counts = { events: 0, eventsChanged: 0, snapshots: 0, quotes: 0, rejectedQuotes: 0 };
    const writes = fresh ? this.streamWrites(cycleID, at.getTime(), options.eventsLast ?? false) : undefined;
    const catalogue = new CatalogueBuilder();
    const events = cycle.events[Symbol.iterator]();
    let mark = performance.now();
    const lap = () => {
      const now = performance.now();
      const ms = now - mark;
      mark = now;
      return ms;
    };
    for (;;) {
      const next = events.next();
      phases.fetch += lap();
      if (next.done) break;
      const normalised = normaliseEvent(next.value, cycle.leagueWrites, {
        fairOddsBookmakers: this.deps.fairOddsBookmakers,
      });
      phases.normalise += lap();
      if (!normalised) continue;
      catalogue.add(normalised.event);
      if (options.beforeQueue) {
        await options.beforeQueue(normalised.event);
        lap();
      }
      counts.events += 1;
      counts.snapshots += normalised.observations.length;
      for (const observation of normalised.observations) counts.quotes += observation.quotes.length;
      counts.rejectedQuotes += normalised.rejectedQuotes;
      if (writes) {
        if (writes.addEvent(normalised.event)) counts.eventsChanged += 1;
        writes.addQuotes(normalised.ref, normalised.observations);
      }
      phases.fingerprint += lap();
      if (writes) {
        await writes.room();
        lap();
      }
    }
    let pending: Record<WriteTarget, number>;
    if (writes) {
      this.enqueueCatalogue(cycleID, catalogue.build([...cycle.leagues.values()]));
      this.writtenFreshestMs = this.builtFreshestMs;
      pending = await writes.finish();
    } else {
      pending = await this.flush({ eventsLast: options.eventsLast });
    }
    return {
      cycleID,
      fresh,
      ...counts,
      upstream: this.lastUpstreamTally,
      pending,
      phaseMs: {
        fetch: Math.round(phases.fetch),
        normalise: Math.round(phases.normalise),
        fingerprint: Math.round(phases.fingerprint),
        writes: { ...this.writePhases },
      },
    };
  }

  /** Queues a cycle's writes behind anything still pending; answers how many events go whole (content changed). */
  enqueue(cycleID: string, observedAtMs: number, content: CycleContent, limits: BatchLimits = this.limits): number {
    this.enqueueHistory(content.eventRefs, content.observations, limits);
    let changed = 0;
    for (const event of content.events) if (this.enqueueEvent(event)) changed += 1;
    this.pendingEventsCycle = { cycleID, observedAtMs };
    this.enqueueCatalogue(cycleID, content.catalogue);
    return changed;
  }

  /**
   * Events are current state: a newer cycle supersedes what is still pending. An event whose content
   * is what events already hold goes as its observation times alone. Answers whether it goes whole.
   */
  private enqueueEvent(event: EventState): boolean {
    const fingerprint = contentFingerprint(event);
    if (this.appliedContent.get(event.eventID) === fingerprint) {
      this.pendingEvents.delete(event.eventID);
      this.pendingRestamps.set(event.eventID, observationStamps(event));
      return false;
    }
    this.pendingRestamps.delete(event.eventID);
    this.pendingEvents.set(event.eventID, { event, fingerprint });
    return true;
  }

  /** The catalogue is current state too; events a pending one carried and this one does not stay in it. */
  private enqueueCatalogue(cycleID: string, content: CatalogueContent): void {
    if (this.pendingCatalogue) {
      const carried = new Map(this.pendingCatalogue.content.events.map((e) => [e.eventID, e]));
      for (const e of content.events) carried.set(e.eventID, e);
      this.pendingCatalogue = { cycleID, content: { ...content, events: [...carried.values()] } };
    } else {
      this.pendingCatalogue = { cycleID, content };
    }
  }

  /** Queues quotes for history alone, behind anything still pending (the backfill's replay, streamed). */
  enqueueHistory(refs: EventRef[], observations: BookObservation[], limits: BatchLimits = this.limits): void {
    const calls = new HistoryCalls(limits, (batch) => this.historyQueue.push(batch));
    calls.add(refs, observations);
    calls.close();
  }

  /**
   * Writes everything queued; each target stops at its first failure and keeps the rest for the next cycle.
   * `eventsLast`: events are written only once history and catalogue took everything (the backfill, whose
   * done-marker is the events service's applied cycle: a kill before then makes the restart redo it).
   * `historyOnly`: only history's queue (the backfill's replay, while its events are not yet built).
   */
  async flush(options: { eventsLast?: boolean; historyOnly?: boolean } = {}): Promise<Record<WriteTarget, number>> {
    const flushStarted = performance.now();
    this.writePhases = { events: 0, history: 0, catalogue: 0 };
    const timed = (target: WriteTarget, flushTarget: () => Promise<unknown>) => async () => {
      await flushTarget();
      this.writePhases[target] = Math.round(performance.now() - flushStarted);
    };
    const history = timed("history", () => this.writeHistoryQueue());
    const events = timed("events", () => this.writePendingEvents(0));
    const catalogue = timed("catalogue", () => this.writeCatalogue());
    if (options.historyOnly) {
      await history();
    } else if (options.eventsLast) {
      await Promise.all([history(), catalogue()]);
      if (this.historyAndCatalogueWritten()) await events();
    } else {
      await Promise.all([history(), events(), catalogue()]);
    }
    return this.pendingCounts();
  }

  /**
   * The writes of a cycle built event by event. History's calls go as they fill, in order and one at a
   * time; events' calls go as they fill, each sent while events applies the one before; the last events
   * call (with the stamps of the unchanged events) and the catalogue go once the build is done.
   * `room()` lets the writes run and holds the build while a target has more than
   * WAITING_CALLS_WHILE_BUILDING calls waiting. A failed call stops its target for the cycle: the rest
   * stays queued (history) or pending (events) for the next one, as with `flush`. `eventsLast`: the last
   * events call waits for history and catalogue, and stays pending unless both took everything.
   */
  private streamWrites(cycleID: string, observedAtMs: number, eventsLast: boolean) {
    this.pendingEventsCycle = { cycleID, observedAtMs };
    const started = performance.now();
    this.writePhases = { events: 0, history: 0, catalogue: 0 };
    // Resolves the build's wait for the writes; each call that ends calls the one current then.
    let release = () => {};
    const progressed = () => new Promise<void>((resolve) => (release = resolve));
    const wake = () => release();

    const history = new HistoryCalls(this.limits, (batch) => this.historyQueue.push(batch));
    let historyWriting: Promise<void> | undefined;
    let historyStopped = false;
    const writeHistory = () => {
      historyWriting ??= this.writeHistoryQueue(wake)
        .then((emptied) => {
          historyStopped ||= !emptied;
        })
        .finally(() => (historyWriting = undefined));
    };

    const eventCalls: EventState[][] = [];
    const events = new EventCalls(this.limits, (call) => eventCalls.push(call));
    let eventsSent = 0;
    let eventsStopped = false;
    let eventsInFlight: Promise<boolean> = Promise.resolve(true);
    let eventsWriting: Promise<void> | undefined;
    const writeEvents = () => {
      eventsWriting ??= (async () => {
        while (!eventsStopped && eventCalls.length > 0) {
          const call = eventCalls.shift() as EventState[];
          const previous = eventsInFlight;
          eventsSent += 1;
          eventsInFlight = this.sendEvents(`${cycleID}#${eventsSent}`, observedAtMs, call, []).finally(wake);
          if (!(await previous)) eventsStopped = true;
        }
      })().finally(() => (eventsWriting = undefined));
    };

    return {
      /** Queues one built event; answers whether it goes whole (its content changed). */
      addEvent: (event: EventState): boolean => {
        const changed = this.enqueueEvent(event);
        if (changed) events.add(event);
        return changed;
      },
      addQuotes: (ref: EventRef, observations: BookObservation[]): void => history.add([ref], observations),
      room: async (): Promise<void> => {
        writeHistory();
        writeEvents();
        // The build is synchronous: let the calls' I/O in between events.
        await new Promise((resolve) => setImmediate(resolve));
        const waiting = () =>
          (!historyStopped && this.historyQueue.length > 1 + WAITING_CALLS_WHILE_BUILDING) ||
          (!eventsStopped && eventCalls.length > WAITING_CALLS_WHILE_BUILDING);
        while (waiting()) {
          await progressed();
          writeHistory();
          writeEvents();
        }
      },
      /** Sends the rest, the catalogue beside it, and answers what stays pending. */
      finish: async (): Promise<Record<WriteTarget, number>> => {
        const done = (target: WriteTarget) => () => {
          this.writePhases[target] = Math.round(performance.now() - started);
        };
        history.close();
        const historyDone = (async () => {
          while (historyWriting) await historyWriting;
          if (!historyStopped) await this.writeHistoryQueue();
        })().then(done("history"));
        const catalogueDone = this.writeCatalogue().then(done("catalogue"));
        const eventsDone = (async () => {
          while (eventsWriting) await eventsWriting;
          // The last call sent lands or fails (its retries included) before the cycle ends, even once an earlier
          // call stopped the target: a call still retrying could otherwise land after the next cycle began.
          const lastLanded = await eventsInFlight;
          if (eventsStopped || !lastLanded) return;
          if (eventsLast) {
            await Promise.all([historyDone, catalogueDone]);
            if (!this.historyAndCatalogueWritten()) return;
          }
          await this.writePendingEvents(eventsSent);
        })().then(done("events"));
        await Promise.all([historyDone, eventsDone, catalogueDone]);
        return this.pendingCounts();
      },
    };
  }

  /** Nothing of history or the catalogue is queued: the backfill's done-marker may go. */
  private historyAndCatalogueWritten(): boolean {
    return this.historyQueue.length === 0 && !this.pendingCatalogue;
  }

  private pendingCounts(): Record<WriteTarget, number> {
    const pending: Record<WriteTarget, number> = {
      history: this.historyQueue.length,
      events: this.pendingEvents.size + this.pendingRestamps.size,
      catalogue: this.pendingCatalogue ? 1 : 0,
    };
    for (const [target, count] of Object.entries(pending)) this.deps.observer?.pending(target as WriteTarget, count);
    return pending;
  }

  private async attempt(target: WriteTarget, write: () => Promise<void>): Promise<boolean> {
    const started = Date.now();
    try {
      await write();
      this.deps.logger.debug({ target, ms: Date.now() - started }, "write done");
      return true;
    } catch (err) {
      this.deps.observer?.writeFailed(target);
      this.deps.logger.error({ err, target }, "write failed; kept queued for the next cycle");
      return false;
    }
  }

  /** History's queue in order, one call at a time, until it is empty (true) or a call fails (false). */
  private async writeHistoryQueue(afterEachCall: () => void = () => {}): Promise<boolean> {
    while (this.historyQueue.length > 0) {
      const batch = this.historyQueue[0] as HistoryBatch;
      const written = await this.attempt("history", () => this.deps.sink.recordQuotes(batch.refs, batch.observations));
      afterEachCall();
      if (!written) return false;
      this.historyQueue.shift();
    }
    return true;
  }

  /**
   * One events call; once it landed, its events count as applied and its stamps as written. Events the
   * service does not hold go whole with the next cycle.
   */
  private async sendEvents(
    batchID: string,
    observedAtMs: number,
    batch: EventState[],
    restamped: EventStamps[],
  ): Promise<boolean> {
    let unknown: string[] = [];
    const written = await this.attempt("events", async () => {
      ({ unknownEventIDs: unknown } = await this.deps.sink.applyEvents(batchID, observedAtMs, batch, restamped));
    });
    if (!written) return false;
    for (const event of batch) {
      const sent = this.pendingEvents.get(event.eventID);
      if (sent) this.appliedContent.set(event.eventID, sent.fingerprint);
      this.pendingEvents.delete(event.eventID);
    }
    for (const stamps of restamped) this.pendingRestamps.delete(stamps.eventID);
    for (const eventID of unknown) this.appliedContent.delete(eventID);
    return true;
  }

  /**
   * Every pending event and stamp, after `alreadySent` calls of the same cycle. Calls before the last
   * overlap by one: the next is encoded and sent while events applies the one before (the service
   * applies them one at a time, in any order: each event is in one call). After a failure no further
   * call starts; what did not land stays pending. The last call, with the stamps and the cycle's last
   * batch id `#n/n` (the backfill's done-marker), goes only once every earlier one landed.
   */
  private async writePendingEvents(alreadySent: number): Promise<void> {
    if ((this.pendingEvents.size === 0 && this.pendingRestamps.size === 0) || !this.pendingEventsCycle) return;
    const { cycleID, observedAtMs } = this.pendingEventsCycle;
    const batches = eventBatches(
      [...this.pendingEvents.values()].map(({ event }) => event),
      this.limits,
    );
    if (batches.length === 0) batches.push([]);
    const callCount = alreadySent + batches.length;
    const batchID = (i: number) => (callCount === 1 ? cycleID : `${cycleID}#${alreadySent + i + 1}/${callCount}`);
    let inFlight: Promise<boolean> = Promise.resolve(true);
    for (const [i, batch] of batches.slice(0, -1).entries()) {
      const previous = inFlight;
      const current = this.sendEvents(batchID(i), observedAtMs, batch, []);
      if (!(await previous)) {
        await current;
        return;
      }
      inFlight = current;
    }
    if (!(await inFlight)) return;
    // The stamps ride with the last call: the cycle is applied whole once it lands.
    const last = batches.length - 1;
    await this.sendEvents(batchID(last), observedAtMs, batches[last] as EventState[], [
      ...this.pendingRestamps.values(),
    ]);
  }

  private async writeCatalogue(): Promise<void> {
    const catalogue = this.pendingCatalogue;
    if (!catalogue) return;
    if (await this.attempt("catalogue", () => this.deps.sink.applyCatalogue(catalogue.cycleID, catalogue.content))) {
      // A newer cycle's catalogue queued while this one was written stays pending.
      if (this.pendingCatalogue === catalogue) this.pendingCatalogue = undefined;
    }
  }
}

/**
 * Observations in history calls of bounded size, in their order, as they come. A call ends at an
 * event boundary where it can (up to twice the limit), so one book's snapshots travel together.
 */
class HistoryCalls {
  private observations: BookObservation[] = [];
  private quotes = 0;
  /** The call's events in the order their first snapshot came. */
  private refs = new Map<string, EventRef | undefined>();

  constructor(
    private readonly limits: BatchLimits,
    private readonly emit: (batch: HistoryBatch) => void,
  ) {}

  add(eventRefs: EventRef[], observations: BookObservation[]): void {
    const refs = new Map(eventRefs.map((r) => [r.eventID, r]));
    for (const observation of observations) {
      const { snapshotsPerCall, quotesPerCall } = this.limits;
      const size = this.quotes + observation.quotes.length;
      const full = this.observations.length >= snapshotsPerCall || size > quotesPerCall;
      const overfull = this.observations.length >= 2 * snapshotsPerCall || size > 2 * quotesPerCall;
      if (overfull || (full && this.observations.at(-1)?.eventID !== observation.eventID)) this.close();
      this.observations.push(observation);
      this.quotes += observation.quotes.length;
      if (!this.refs.has(observation.eventID)) this.refs.set(observation.eventID, refs.get(observation.eventID));
    }
  }

  close(): void {
    if (this.observations.length === 0) return;
    this.emit({ refs: [...this.refs.values()].filter((r) => r !== undefined), observations: this.observations });
    this.observations = [];
    this.quotes = 0;
    this.refs = new Map();
  }
}

/** Bookmaker prices an event carries, main and alternate lines. */
function pricesOf(event: EventState): number {
  let prices = 0;
  for (const side of Object.values(event.odds)) {
    prices += Object.keys(side.byBookmaker).length;
    for (const line of Object.values(side.altLines)) prices += Object.keys(line).length;
  }
  return prices;
}

/** Events in calls of at most `eventsPerCall` events and `pricesPerCall` prices (one event alone may pass the latter), as they come. */
class EventCalls {
  private events: EventState[] = [];
  private prices = 0;

  constructor(
    private readonly limits: BatchLimits,
    private readonly emit: (call: EventState[]) => void,
  ) {}

  add(event: EventState): void {
    const own = pricesOf(event);
    const { eventsPerCall, pricesPerCall } = this.limits;
    if (this.events.length > 0 && (this.events.length >= eventsPerCall || this.prices + own > pricesPerCall)) {
      this.emit(this.events);
      this.events = [];
      this.prices = 0;
    }
    this.events.push(event);
    this.prices += own;
  }

  close(): void {
    if (this.events.length > 0) this.emit(this.events);
    this.events = [];
    this.prices = 0;
  }
}

/** Events in calls of at most `eventsPerCall` events and `pricesPerCall` prices (one event alone may pass the latter). */
export function eventBatches(events: EventState[], limits: BatchLimits): EventState[][] {
  const batches: EventState[][] = [];
  const calls = new EventCalls(limits, (call) => batches.push(call));
  for (const event of events) calls.add(event);
  calls.close();
  return batches;
}
