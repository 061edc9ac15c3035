import { createHash } from "node:crypto";
import { events } from "@odds/proto";
import type { Logger } from "pino";
import stableStringify from "safe-stable-stringify";
import { applyCycleDuration, appliedEvents, readModelEvents, readModelRefreshes } from "./metrics";
import { type EventReadModel, PreparedEvent } from "./readModel";
import type { EventStore, StoredEvent } from "./store";

export interface CycleResult {
  upserted: number;
  unchanged: number;
}

export interface FeedStatus {
  lastCycleAtMs: number;
  eventCount: number;
}

/** Hash of an event's content, independent of map insertion order. */
export function contentHashOf(event: events.Event): string {
  return createHash("sha256")
    .update(stableStringify(events.Event.toJSON(event)) ?? "")
    .digest("base64url");
}

/**
 * Keeps the store and the in-memory read model in step: applies ingest cycles (idempotently,
 * one at a time) and picks up cycles applied through other replicas by polling the feed version.
 */
export class EventFeed {
  private queue: Promise<unknown> = Promise.resolve();
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly model: EventReadModel,
    private readonly logger: Logger,
  ) {}

  /** Loads every stored event into the read model (service start). */
  async load(): Promise<void> {
    await this.store.ensureIndexes();
    await this.serialized(() => this.refresh());
    this.logger.info({ events: this.model.size, version: this.model.feedState.version }, "read model loaded");
  }

  status(): FeedStatus {
    return { lastCycleAtMs: this.model.feedState.lastCycleAtMs, eventCount: this.model.size };
  }

  /** Replaces the current state of the given events. Content already held is left untouched. */
  applyCycle(cycle: { cycleId: string; observedAtMs: number; events: events.Event[] }): Promise<CycleResult> {
    return this.serialized(async () => {
      const stopTimer = applyCycleDuration.startTimer();
      try {
        await this.refresh();
        const latest = new Map<string, events.Event>();
        for (const event of cycle.events) latest.set(event.eventId, withSourceWriteTime(event, cycle.observedAtMs));
        const changed: StoredEvent[] = [];
        for (const event of latest.values()) {
          const contentHash = contentHashOf(event);
          if (this.model.contentHash(event.eventId) !== contentHash) changed.push({ event, contentHash });
        }
        const previous = this.model.feedState;
        const version = changed.length > 0 ? previous.version + 1 : previous.version;
        if (changed.length > 0) await this.store.upsertEvents(changed, version);
        const state = { version, cycleId: cycle.cycleId, lastCycleAtMs: Date.now() };
        await this.store.writeFeedState({ ...state, observedAtMs: cycle.observedAtMs });
        this.model.apply(
          changed.map(({ event, contentHash }) => new PreparedEvent(event, contentHash)),
          state,
        );
        readModelEvents.set(this.model.size);
        const result = { upserted: changed.length, unchanged: cycle.events.length - changed.length };
        appliedEvents.inc({ result: "upserted" }, result.upserted);
        appliedEvents.inc({ result: "unchanged" }, result.unchanged);
        this.logger.info({ cycleId: cycle.cycleId, version, ...result }, "cycle applied");
        return result;
      } finally {
        stopTimer();
      }
    });
  }

  /** Polls the feed version so cycles applied through another replica reach this one within `intervalMs`. */
  startPolling(intervalMs: number): void {
    this.poller = setInterval(() => {
      this.serialized(() => this.refresh()).catch((err: unknown) =>
        this.logger.warn({ err }, "read model refresh failed; serving the last loaded cycle"),
      );
    }, intervalMs);
    this.poller.unref();
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.queue.catch(() => undefined);
  }

  /** Loads whatever changed since the model's version; a no-op (one small read) when nothing did. */
  private async refresh(): Promise<void> {
    const stored = await this.store.readFeedState();
    const held = this.model.feedState;
    if (stored.version === held.version && held.version !== 0) {
      if (stored.lastCycleAtMs !== held.lastCycleAtMs) this.model.apply([], { ...held, ...pick(stored) });
      return;
    }
    const changed = await this.store.loadEventsSince(held.version);
    this.model.apply(
      changed.map(({ event, contentHash }) => new PreparedEvent(event, contentHash)),
      pick(stored),
    );
    readModelEvents.set(this.model.size);
    if (held.version !== 0) readModelRefreshes.inc();
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function pick(state: { version: number; cycleId: string; lastCycleAtMs: number }) {
  return { version: state.version, cycleId: state.cycleId, lastCycleAtMs: state.lastCycleAtMs };
}

/** info.lastUpdatedAt defaults to the cycle's source write time when ingest leaves it unset. */
function withSourceWriteTime(event: events.Event, observedAtMs: number): events.Event {
  if (event.info && event.info.lastUpdatedAtMs > 0) return event;
  return { ...event, info: { ...events.EventInfo.create(), ...event.info, lastUpdatedAtMs: observedAtMs } };
}
