// One ingest cycle: fetch every source → normalise and price → write events, quotes and catalogue.
// Writes go through an outbox: what could not be written stays queued (in order) and is retried
// on the next cycle, so a failure is never silently lost and history never sees quotes out of order.
import type { Logger } from "@odds/platform";
import type { BookObservation, CatalogueContent, CycleContent, EventRef, EventState } from "./domain/model";
import { normaliseCycle, type RankedSnapshot } from "./domain/normalise";
import { contentFingerprint, observationStamps, type EventStamps } from "./domain/observation-stamps";
import type { FeedSource } from "./sources/feed-source";
import { matchAcrossSources, NameMatcher, type CatalogueNames } from "./sources/matching/name-matcher";

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
  /** The cycle events applied last (atMs 0 = never): the backfill marker. */
  lastAppliedCycle(): Promise<{ atMs: number; cycleID: string }>;
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
 * 30 000 quotes (the regular cycle's bound) cost no more wall time (README "History memory").
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
   * Where the cycle's wall time went (ms): fetching the sources, normalising and pricing, comparing
   * each event with what events hold, and each target's writes (they run side by side).
   */
  phaseMs: CyclePhases;
}

export interface CyclePhases {
  fetch: number;
  normalise: number;
  fingerprint: number;
  writes: Record<WriteTarget, number>;
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
  /** Newest source write the last buildCycle saw, and the newest one a cycle has carried downstream. */
  private builtFreshestMs = 0;
  private writtenFreshestMs = 0;
  /** The last buildCycle's fetch and normalisation times, and the last flush's per-target write times (ms). */
  private buildPhases = { fetch: 0, normalise: 0 };
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

  /** Fetches, normalises and prices every source at `at`. A source that fails is left out (its leagues go stale). */
  async buildCycle(at: Date): Promise<CycleContent> {
    const started = performance.now();
    const fetched = await Promise.all(
      this.deps.sources.map(async (source) => {
        try {
          const snapshot = await source.fetchSnapshot(at);
          return { sourceID: source.id, rank: source.rank, snapshot, matching: source.nameMatching };
        } catch (err) {
          this.deps.logger.error(
            { err, sourceID: source.id },
            "source fetch failed; its leagues go stale until it recovers",
          );
          return undefined;
        }
      }),
    );
    const idSourceFailed = this.deps.sources.some((source, i) => !source.nameMatching && fetched[i] === undefined);
    const snapshots: RankedSnapshot[] = await matchAcrossSources(
      this.matcher,
      fetched.filter((s) => s !== undefined),
      at.getTime(),
      idSourceFailed,
      (leagueID, err) =>
        this.deps.logger.error(
          { err, leagueID },
          "catalogue names unreadable; matching with the last read (a league never read is held back)",
        ),
    );
    this.lastUpstreamTally = {};
    this.builtFreshestMs = Math.max(
      0,
      ...snapshots.flatMap(({ snapshot }) => snapshot.leagues.map((l) => l.lastWriteAt.getTime())),
    );
    for (const { sourceID, snapshot } of snapshots) {
      if (!snapshot.tally || Object.keys(snapshot.tally).length === 0) continue;
      this.lastUpstreamTally[sourceID] = snapshot.tally;
      this.deps.observer?.upstreamTally?.(sourceID, snapshot.tally);
    }
    const fetchedAt = performance.now();
    const content = normaliseCycle(snapshots, { fairOddsBookmakers: this.deps.fairOddsBookmakers });
    this.buildPhases = { fetch: Math.round(fetchedAt - started), normalise: Math.round(performance.now() - fetchedAt) };
    return content;
  }

  async runCycle(at: Date): Promise<CycleReport> {
    const cycleID = cycleIdAt(at);
    const content = await this.buildCycle(at);
    // No source has written since the last cycle (all failed or quiet; real sources keep their last
    // good snapshot): nothing new to apply. Events then stop advancing their last cycle, so /health
    // says the pipeline is stale, and each event's info.stale follows its own source write time.
    const fresh = this.builtFreshestMs > this.writtenFreshestMs;
    let eventsChanged = 0;
    const enqueuedFrom = performance.now();
    if (fresh) {
      eventsChanged = this.enqueue(cycleID, at.getTime(), content);
      this.writtenFreshestMs = this.builtFreshestMs;
    } else {
      this.deps.logger.warn(
        { cycleID, newestSourceWriteAtMs: this.builtFreshestMs },
        "no source wrote since the last cycle; nothing applied",
      );
    }
    const fingerprintMs = Math.round(performance.now() - enqueuedFrom);
    const pending = await this.flush();
    return {
      cycleID,
      fresh,
      events: content.events.length,
      eventsChanged,
      snapshots: content.observations.length,
      quotes: content.observations.reduce((sum, o) => sum + o.quotes.length, 0),
      rejectedQuotes: content.rejectedQuotes,
      upstream: this.lastUpstreamTally,
      pending,
      phaseMs: { ...this.buildPhases, fingerprint: fingerprintMs, writes: { ...this.writePhases } },
    };
  }

  /** Queues a cycle's writes behind anything still pending; answers how many events go whole (content changed). */
  enqueue(cycleID: string, observedAtMs: number, content: CycleContent, limits: BatchLimits = this.limits): number {
    this.enqueueHistory(content.eventRefs, content.observations, limits);
    // Events and catalogue are current state: a newer cycle supersedes what is still pending. An event
    // whose content is what events already hold goes as its observation times alone.
    let changed = 0;
    for (const event of content.events) {
      const fingerprint = contentFingerprint(event);
      if (this.appliedContent.get(event.eventID) === fingerprint) {
        this.pendingEvents.delete(event.eventID);
        this.pendingRestamps.set(event.eventID, observationStamps(event));
      } else {
        this.pendingRestamps.delete(event.eventID);
        this.pendingEvents.set(event.eventID, { event, fingerprint });
        changed += 1;
      }
    }
    this.pendingEventsCycle = { cycleID, observedAtMs };
    if (this.pendingCatalogue) {
      const carried = new Map(this.pendingCatalogue.content.events.map((e) => [e.eventID, e]));
      for (const e of content.catalogue.events) carried.set(e.eventID, e);
      this.pendingCatalogue = { cycleID, content: { ...content.catalogue, events: [...carried.values()] } };
    } else {
      this.pendingCatalogue = { cycleID, content: content.catalogue };
    }
    return changed;
  }

  /** Queues quotes for history alone, behind anything still pending (the backfill's replay, streamed). */
  enqueueHistory(refs: EventRef[], observations: BookObservation[], limits: BatchLimits = this.limits): void {
    this.historyQueue.push(...this.historyBatches(refs, observations, limits));
  }

  /**
   * Writes everything queued; each target stops at its first failure and keeps the rest for the next cycle.
   * `eventsLast`: events are written only once history and catalogue took everything (the backfill, whose
   * done-marker is the events service's applied cycle: a kill before then makes the restart redo it).
   * `historyOnly`: only history's queue (the backfill's replay, while its events are not yet built).
   */
  async flush(options: { eventsLast?: boolean; historyOnly?: boolean } = {}): Promise<Record<WriteTarget, number>> {
    const { sink, logger, observer } = this.deps;
    const attempt = async (target: WriteTarget, write: () => Promise<void>): Promise<boolean> => {
      const started = Date.now();
      try {
        await write();
        logger.debug({ target, ms: Date.now() - started }, "write done");
        return true;
      } catch (err) {
        observer?.writeFailed(target);
        logger.error({ err, target }, "write failed; kept queued for the next cycle");
        return false;
      }
    };

    // The three targets are independent: a slow or failing one does not hold the others back.
    const flushHistory = async () => {
      while (this.historyQueue.length > 0) {
        const batch = this.historyQueue[0] as HistoryBatch;
        if (!(await attempt("history", () => sink.recordQuotes(batch.refs, batch.observations)))) return;
        this.historyQueue.shift();
      }
    };
    const flushEvents = async () => {
      if ((this.pendingEvents.size === 0 && this.pendingRestamps.size === 0) || !this.pendingEventsCycle) return;
      const { cycleID, observedAtMs } = this.pendingEventsCycle;
      const batches = eventBatches(
        [...this.pendingEvents.values()].map(({ event }) => event),
        this.limits,
      );
      if (batches.length === 0) batches.push([]);
      const batchCount = batches.length;
      const send = async (batch: EventState[], i: number): Promise<boolean> => {
        const batchID = batchCount === 1 ? cycleID : `${cycleID}#${i + 1}/${batchCount}`;
        // The stamps ride with the last call: the cycle is applied whole once it lands.
        const restamped = i === batchCount - 1 ? [...this.pendingRestamps.values()] : [];
        let unknown: string[] = [];
        const written = await attempt("events", async () => {
          ({ unknownEventIDs: unknown } = await sink.applyEvents(batchID, observedAtMs, batch, restamped));
        });
        if (!written) return false;
        for (const event of batch) {
          const sent = this.pendingEvents.get(event.eventID);
          if (sent) this.appliedContent.set(event.eventID, sent.fingerprint);
          this.pendingEvents.delete(event.eventID);
        }
        for (const stamps of restamped) this.pendingRestamps.delete(stamps.eventID);
        // Events the service does not hold go whole with the next cycle.
        for (const eventID of unknown) this.appliedContent.delete(eventID);
        return true;
      };
      // Calls before the last overlap by one: the next is encoded and sent while events applies the one
      // before (the service applies them one at a time, in any order: each event is in one call). After a
      // failure no further call starts; what did not land stays pending. The last call, with the stamps
      // and the cycle's last batch id (the backfill's done-marker), goes only once every earlier one landed.
      let inFlight: Promise<boolean> = Promise.resolve(true);
      for (const [i, batch] of batches.slice(0, -1).entries()) {
        const previous = inFlight;
        const current = send(batch, i);
        if (!(await previous)) {
          await current;
          return;
        }
        inFlight = current;
      }
      if (!(await inFlight)) return;
      await send(batches.at(-1) as EventState[], batchCount - 1);
    };
    const flushCatalogue = async () => {
      const catalogue = this.pendingCatalogue;
      if (catalogue && (await attempt("catalogue", () => sink.applyCatalogue(catalogue.cycleID, catalogue.content)))) {
        this.pendingCatalogue = undefined;
      }
    };
    const flushStarted = performance.now();
    this.writePhases = { events: 0, history: 0, catalogue: 0 };
    const timed = (target: WriteTarget, flushTarget: () => Promise<void>) => async () => {
      await flushTarget();
      this.writePhases[target] = Math.round(performance.now() - flushStarted);
    };
    const history = timed("history", flushHistory);
    const events = timed("events", flushEvents);
    const catalogue = timed("catalogue", flushCatalogue);
    if (options.historyOnly) {
      await history();
    } else if (options.eventsLast) {
      await Promise.all([history(), catalogue()]);
      if (this.historyQueue.length === 0 && !this.pendingCatalogue) await events();
    } else {
      await Promise.all([history(), events(), catalogue()]);
    }

    const pending: Record<WriteTarget, number> = {
      history: this.historyQueue.length,
      events: this.pendingEvents.size + this.pendingRestamps.size,
      catalogue: this.pendingCatalogue ? 1 : 0,
    };
    for (const [target, count] of Object.entries(pending)) observer?.pending(target as WriteTarget, count);
    return pending;
  }

  /**
   * Splits observations into calls of bounded size, keeping their order. A call ends at an event
   * boundary where it can (up to twice the limit), so one book's snapshots travel together.
   */
  private historyBatches(eventRefs: EventRef[], observations: BookObservation[], limits: BatchLimits): HistoryBatch[] {
    const refs = new Map(eventRefs.map((r) => [r.eventID, r]));
    const batches: HistoryBatch[] = [];
    let current: BookObservation[] = [];
    let quotes = 0;
    const close = () => {
      if (current.length === 0) return;
      const eventIDs = new Set(current.map((o) => o.eventID));
      batches.push({ refs: [...eventIDs].flatMap((id) => refs.get(id) ?? []), observations: current });
      current = [];
      quotes = 0;
    };
    for (const observation of observations) {
      const full =
        current.length >= limits.snapshotsPerCall || quotes + observation.quotes.length > limits.quotesPerCall;
      const overfull =
        current.length >= 2 * limits.snapshotsPerCall || quotes + observation.quotes.length > 2 * limits.quotesPerCall;
      if (overfull || (full && current.at(-1)?.eventID !== observation.eventID)) close();
      current.push(observation);
      quotes += observation.quotes.length;
    }
    close();
    return batches;
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

/** Events in calls of at most `eventsPerCall` events and `pricesPerCall` prices (one event alone may pass the latter). */
export function eventBatches(events: EventState[], limits: BatchLimits): EventState[][] {
  const batches: EventState[][] = [];
  let batch: EventState[] = [];
  let prices = 0;
  for (const event of events) {
    const own = pricesOf(event);
    if (batch.length > 0 && (batch.length >= limits.eventsPerCall || prices + own > limits.pricesPerCall)) {
      batches.push(batch);
      batch = [];
      prices = 0;
    }
    batch.push(event);
    prices += own;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
