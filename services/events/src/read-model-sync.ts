import { EventEmitter } from "node:events";
import { currentThenChanges, WriteQueue } from "@odds/platform";
import { events } from "@odds/proto";
import type { Logger } from "pino";
import { preparedFrom } from "./event-preparation";
import type { EventPreparer } from "./event-preparer";
import { applyCycleDuration, appliedEvents, readModelEvents, readModelRefreshes } from "./metrics";
import type { EventReadModel, FeedState, PreparedEvent } from "./read-model";
import type { ObservationStamps } from "./stamps";
import type { EventStore, EventWrite, StoredEvent } from "./store";

/** Stored events sent to the preparation's worker at once on a load: the store cursor's batch. */
const LOAD_BATCH = 16;

export interface CycleResult {
  upserted: number;
  unchanged: number;
  /** Restamped events not held here (a reset store): ingest sends them whole next. */
  unknownEventIds: string[];
}

export interface FeedStatus {
  lastCycleAtMs: number;
  eventCount: number;
  lastCycleId: string;
  lastCycleObservedAtMs: number;
}

/** The observation times ingest sent for an event it carried unchanged. */
function stampsOfMessage(message: events.EventStamps): ObservationStamps {
  return {
    lastUpdatedAtMs: message.lastUpdatedAtMs,
    bookmakers: new Map(Object.entries(message.bookmakerObservedAtMs)),
  };
}

/**
 * Keeps the store and the in-memory read model in step: applies ingest cycles (idempotently,
 * one at a time) and picks up cycles applied through other replicas by polling the feed version.
 * Tells its watchers each feed status the model takes on.
 */
export class ReadModelSync {
  private readonly writes = new WriteQueue();
  private poller: NodeJS.Timeout | undefined;
  /** "status" with each feed status the model takes on; every edge replica watches. */
  private readonly statuses = new EventEmitter().setMaxListeners(0);
  private readonly watchesEnded = new AbortController();

  constructor(
    private readonly store: EventStore,
    private readonly model: EventReadModel,
    private readonly logger: Logger,
    private readonly preparer: EventPreparer,
  ) {}

  /** Loads every stored event into the read model (service start). */
  async load(): Promise<void> {
    await this.store.ensureIndexes();
    await this.writes.run(() => this.refresh());
    this.logger.info({ events: this.model.size, version: this.model.feedState.version }, "read model loaded");
  }

  status(): FeedStatus {
    const { lastCycleAtMs, cycleId, observedAtMs } = this.model.feedState;
    return { lastCycleAtMs, eventCount: this.model.size, lastCycleId: cycleId, lastCycleObservedAtMs: observedAtMs };
  }

  /** The feed status now, then each one the model takes on, in order, until `cancelled` aborts or `endWatches` is called. */
  watchStatus(cancelled: AbortSignal): AsyncGenerator<FeedStatus> {
    const ended = AbortSignal.any([cancelled, this.watchesEnded.signal]);
    return currentThenChanges(this.statuses, "status", () => this.status(), ended);
  }

  /** Ends every watch (the service is stopping: watchers reopen theirs on another replica). */
  endWatches(): void {
    this.watchesEnded.abort();
  }

  /**
   * Replaces the current state of the given events. Content already held is left untouched: an
   * event sent again unchanged, or sent only as its stamps, is restamped (its observation times
   * move forward) without rewriting or re-rendering it.
   */
  applyCycle(cycle: events.ApplyCycleRequestEncoded): Promise<CycleResult> {
    return this.writes.run(async () => {
      const stopTimer = applyCycleDuration.startTimer();
      const startedAt = performance.now();
      try {
        await this.refresh();
        // The last of an event id wins; its id is read alone, the event decoded in the preparation's worker.
        const latest = new Map<string, Uint8Array>();
        for (const encoded of cycle.events) latest.set(events.EventKey.decode(encoded).eventId, encoded);
        const prepared: PreparedEvent[] = [];
        const writes: EventWrite[] = [];
        const restamped = new Map<string, PreparedEvent>();
        const restamp = (eventID: string, stamps: ObservationStamps): boolean => {
          const held = restamped.get(eventID) ?? this.model.prepared(eventID);
          if (!held) return false;
          const moved = held.restamped(stamps);
          if (moved !== held) restamped.set(eventID, moved);
          return true;
        };
        const preparations = await this.preparer.prepare(
          [...latest].map(([eventID, encoded]) => ({ eventID, encoded })),
          (eventID) => this.model.prepared(eventID),
          cycle.observedAtMs,
        );
        for (const preparation of preparations) {
          if (!preparation.changed) {
            restamp(preparation.eventID, preparation.stamps);
            continue;
          }
          const event = preparedFrom(preparation.parts);
          prepared.push(event);
          writes.push({
            eventID: event.facts.eventID,
            sportID: event.facts.sportID,
            leagueID: event.facts.leagueID,
            startsAtMs: event.facts.startsAtMs,
            packed: preparation.parts.packed,
            contentHash: event.contentHash,
            marketBook: event.marketBook,
            settlement: event.settlement,
          });
        }
        const unknownEventIds: string[] = [];
        for (const entry of cycle.restamped) {
          if (latest.has(entry.eventId)) continue;
          if (!restamp(entry.eventId, stampsOfMessage(entry))) unknownEventIds.push(entry.eventId);
        }
        const renderedAt = performance.now();
        const previous = this.model.feedState;
        const moved = writes.length > 0 || restamped.size > 0;
        const version = moved ? previous.version + 1 : previous.version;
        if (writes.length > 0) await this.store.upsertEvents(writes, version);
        if (restamped.size > 0) {
          await this.store.upsertStamps(new Map([...restamped].map(([id, event]) => [id, event.stamps])), version);
        }
        const state: FeedState = {
          version,
          cycleId: cycle.cycleId,
          lastCycleAtMs: Date.now(),
          observedAtMs: cycle.observedAtMs,
        };
        await this.store.writeFeedState(state);
        const storedAt = performance.now();
        this.take([...prepared, ...restamped.values()], state);
        const sent = cycle.events.length + cycle.restamped.length;
        const result = { upserted: writes.length, unchanged: sent - writes.length - unknownEventIds.length };
        appliedEvents.inc({ result: "upserted" }, result.upserted);
        appliedEvents.inc({ result: "unchanged" }, result.unchanged);
        this.logger.info(
          {
            cycleId: cycle.cycleId,
            version,
            ...result,
            restamped: restamped.size,
            unknownEventIds: unknownEventIds.length,
            // Where the call's time went: rendering and packing, the store's writes, the whole call.
            renderMs: Math.round(renderedAt - startedAt),
            storeMs: Math.round(storedAt - renderedAt),
            ms: Math.round(performance.now() - startedAt),
          },
          "cycle applied",
        );
        return { ...result, unknownEventIds };
      } finally {
        stopTimer();
      }
    });
  }

  /** Polls the feed version so cycles applied through another replica reach this one within `intervalMs`. */
  startPolling(intervalMs: number): void {
    this.poller = setInterval(() => {
      this.writes
        .run(() => this.refresh())
        .catch((err: unknown) => this.logger.warn({ err }, "read model refresh failed; serving the last loaded cycle"));
    }, intervalMs);
    this.poller.unref();
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.writes.drained();
  }

  /** Loads whatever changed since the model's version; one small read when nothing did. */
  private async refresh(): Promise<void> {
    const stored = await this.store.readFeedState();
    const held = this.model.feedState;
    if (stored.version === held.version) {
      if (stored.lastCycleAtMs !== held.lastCycleAtMs) this.take([], stored);
      return;
    }
    const stamps = await this.store.loadStampsSince(held.version);
    const updated = new Map<string, PreparedEvent>();
    // Prepared on the worker a batch at a time, while the serving thread reads the next from the store.
    const prepare = async (batch: StoredEvent[]) => {
      const preparations = await this.preparer.prepareStored(batch);
      preparations.forEach((parts, index) => {
        updated.set(parts.facts.eventID, preparedFrom({ ...parts, packed: batch[index]!.packed }));
      });
    };
    let batch: StoredEvent[] = [];
    let preparing: Promise<void> | undefined;
    try {
      for await (const stored of this.store.loadEventsSince(held.version)) {
        batch.push(stored);
        if (batch.length < LOAD_BATCH) continue;
        await preparing;
        preparing = prepare(batch);
        batch = [];
      }
      await preparing;
      preparing = undefined;
      if (batch.length > 0) await prepare(batch);
    } finally {
      // A read of the store that failed leaves no preparation's failure unobserved.
      await preparing?.catch(() => undefined);
    }
    // Stamps never move back, so stamps older than a contract written since are simply ignored.
    for (const [eventID, stamp] of stamps) {
      const event = updated.get(eventID) ?? this.model.prepared(eventID);
      if (event) updated.set(eventID, event.restamped(stamp));
    }
    this.take([...updated.values()], stored);
    if (held.version !== 0) readModelRefreshes.inc();
  }

  /** The model takes on these events and this feed state; its watchers are told. */
  private take(updated: readonly PreparedEvent[], state: FeedState): void {
    this.model.apply(updated, state);
    readModelEvents.set(this.model.size);
    this.statuses.emit("status", this.status());
  }
}
