import { createHash } from "node:crypto";
import { setImmediate as yieldToReads } from "node:timers/promises";
import { packJson, WriteQueue } from "@odds/platform";
import { events } from "@odds/proto";
import type { Logger } from "pino";
import { applyCycleDuration, appliedEvents, readModelEvents, readModelRefreshes } from "./metrics";
import { type EventReadModel, type FeedState, PreparedEvent } from "./read-model";
import { settle } from "./grading/settlement";
import { renderEvent, renderOdds, type ContractEvent, type ContractOdds } from "./render";
import { mergeMarketBook } from "./v1-render";
import { restampJson, stampsOf, type ObservationStamps } from "./stamps";
import type { EventStore, StoredEvent } from "./store";

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
}

/**
 * The event as the contract renders it, and a hash of its content: the rendering without its
 * observation times, so an event observed again unchanged keeps its hash. Rendering sorts every
 * map, so the hash does not depend on the order ingest built them in.
 */
export function renderForStore(event: events.Event): { contract: ContractEvent; json: Buffer; contentHash: string } {
  const contract = renderEvent(event);
  const json = Buffer.from(JSON.stringify(contract));
  const contentHash = createHash("sha256").update(restampJson(json, null)).digest("base64url");
  return { contract, json, contentHash };
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
 */
export class ReadModelSync {
  private readonly writes = new WriteQueue();
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly model: EventReadModel,
    private readonly logger: Logger,
  ) {}

  /** Loads every stored event into the read model (service start). */
  async load(): Promise<void> {
    await this.store.ensureIndexes();
    await this.writes.run(() => this.refresh());
    this.logger.info({ events: this.model.size, version: this.model.feedState.version }, "read model loaded");
  }

  status(): FeedStatus {
    const { lastCycleAtMs, cycleId } = this.model.feedState;
    return { lastCycleAtMs, eventCount: this.model.size, lastCycleId: cycleId };
  }

  /**
   * Replaces the current state of the given events. Content already held is left untouched: an
   * event sent again unchanged, or sent only as its stamps, is restamped (its observation times
   * move forward) without rewriting or re-rendering it.
   */
  applyCycle(cycle: {
    cycleId: string;
    observedAtMs: number;
    events: events.Event[];
    restamped?: events.EventStamps[];
  }): Promise<CycleResult> {
    return this.writes.run(async () => {
      const stopTimer = applyCycleDuration.startTimer();
      try {
        await this.refresh();
        const latest = new Map<string, events.Event>();
        for (const event of cycle.events) latest.set(event.eventId, event);
        const changed: StoredEvent[] = [];
        const restamped = new Map<string, PreparedEvent>();
        const restamp = (eventID: string, stamps: ObservationStamps): boolean => {
          const held = restamped.get(eventID) ?? this.model.prepared(eventID);
          if (!held) return false;
          const moved = held.restamped(stamps);
          if (moved !== held) restamped.set(eventID, moved);
          return true;
        };
        for (const event of latest.values()) {
          const rendered = renderForStore(withSourceWriteTime(event, cycle.observedAtMs));
          // A correction mark alone is a change: the results it marks may equal those last rendered.
          const newCorrection =
            event.resultsCorrectedAtMs > (this.model.settlement(event.eventId)?.resultsCorrectedAtMs ?? 0);
          if (this.model.contentHash(event.eventId) === rendered.contentHash && !newCorrection) {
            restamp(event.eventId, stampsOf(rendered.contract));
          } else {
            // Markets closed at the end of an event stay in its market book, so its result can be graded.
            const marketBook = mergeMarketBook(
              this.model.marketBook(event.eventId),
              rendered.contract,
              closedSidesOf(event),
            );
            // Settled once; re-settled only on results the source marked corrected since.
            const settlement = settle(
              this.model.settlement(event.eventId),
              rendered.contract,
              marketBook,
              event.resultsCorrectedAtMs,
              cycle.observedAtMs,
            );
            const { contract, json, contentHash } = rendered;
            changed.push({ contract, contentHash, packed: await packJson(json), marketBook, settlement });
          }
          // Rendering a large cycle is CPU work; let reads in between events.
          await yieldToReads();
        }
        const unknownEventIds: string[] = [];
        for (const entry of cycle.restamped ?? []) {
          if (latest.has(entry.eventId)) continue;
          if (!restamp(entry.eventId, stampsOfMessage(entry))) unknownEventIds.push(entry.eventId);
        }
        const previous = this.model.feedState;
        const moved = changed.length > 0 || restamped.size > 0;
        const version = moved ? previous.version + 1 : previous.version;
        if (changed.length > 0) await this.store.upsertEvents(changed, version);
        if (restamped.size > 0) {
          await this.store.upsertStamps(new Map([...restamped].map(([id, event]) => [id, event.stamps])), version);
        }
        const state: FeedState = { version, cycleId: cycle.cycleId, lastCycleAtMs: Date.now() };
        await this.store.writeFeedState({ ...state, observedAtMs: cycle.observedAtMs });
        this.model.apply([...(await prepare(changed)), ...restamped.values()], state);
        readModelEvents.set(this.model.size);
        const sent = cycle.events.length + (cycle.restamped?.length ?? 0);
        const result = { upserted: changed.length, unchanged: sent - changed.length - unknownEventIds.length };
        appliedEvents.inc({ result: "upserted" }, result.upserted);
        appliedEvents.inc({ result: "unchanged" }, result.unchanged);
        this.logger.info(
          {
            cycleId: cycle.cycleId,
            version,
            ...result,
            restamped: restamped.size,
            unknownEventIds: unknownEventIds.length,
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
    const state: FeedState = { version: stored.version, cycleId: stored.cycleId, lastCycleAtMs: stored.lastCycleAtMs };
    if (stored.version === held.version) {
      if (stored.lastCycleAtMs !== held.lastCycleAtMs) this.model.apply([], state);
      return;
    }
    const stamps = await this.store.loadStampsSince(held.version);
    const updated = new Map<string, PreparedEvent>();
    for await (const stored of this.store.loadEventsSince(held.version)) {
      updated.set(stored.contract.eventID, preparedOf(stored));
      await yieldToReads();
    }
    // Stamps never move back, so stamps older than a contract written since are simply ignored.
    for (const [eventID, stamp] of stamps) {
      const event = updated.get(eventID) ?? this.model.prepared(eventID);
      if (event) updated.set(eventID, event.restamped(stamp));
    }
    this.model.apply([...updated.values()], state);
    readModelEvents.set(this.model.size);
    if (held.version !== 0) readModelRefreshes.inc();
  }
}

function preparedOf({ contract, contentHash, packed, marketBook, settlement }: StoredEvent): PreparedEvent {
  return new PreparedEvent(contract, contentHash, packed, marketBook, settlement);
}

/** Builds the served renderings, yielding between events so reads keep flowing. */
async function prepare(changed: readonly StoredEvent[]): Promise<PreparedEvent[]> {
  const prepared: PreparedEvent[] = [];
  for (const stored of changed) {
    prepared.push(preparedOf(stored));
    await yieldToReads();
  }
  return prepared;
}

/** info.lastUpdatedAt defaults to the cycle's source write time when ingest leaves it unset. */
function withSourceWriteTime(event: events.Event, observedAtMs: number): events.Event {
  if (event.info && event.info.lastUpdatedAtMs > 0) return event;
  return { ...event, info: { ...events.EventInfo.create(), ...event.info, lastUpdatedAtMs: observedAtMs } };
}

/** Sides the event was priced on whose quotes had closed before ingest first wrote it (a backfilled event). */
function closedSidesOf(event: events.Event): Record<string, ContractOdds> {
  return Object.fromEntries(Object.entries(event.closedOdds).map(([oddID, odds]) => [oddID, renderOdds(odds, oddID)]));
}
