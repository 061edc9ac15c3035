import type { Logger } from "@odds/platform";
import type { common, v1 } from "@odds/proto";
import type { FeedVersion } from "../../cache/feed-version";
import type { EventsGateway } from "../../gateways/events";
import { toListEventsV1Request } from "../routes/events";
import { objectsOfEventOdds } from "./protocol";

/** One event's odds as of one cycle, rendered once for every stream that follows it. */
export interface StreamedOdds {
  odds: v1.V1EventOdds;
  /** The odds as sent (compared to tell whether a cycle changed them). */
  json: string;
  objects: number;
}

/** The odds of some events as one read found them. */
export interface OddsRead {
  odds: ReadonlyMap<string, StreamedOdds>;
  /** The cycle they are of, as the events service said with each page (the oldest page's: every odds is of it or newer). */
  cycleAtMs: number;
}

/** A subscriber of the feed: told of every new cycle with the odds of the events it follows. */
export interface CycleListener {
  readonly caller: common.Caller;
  readonly eventIDs: readonly string[];
  onCycle(read: OddsRead): void;
}

/** ListEventsV1 answers at most this many events per page (the v1 odds page maximum). */
const READ_CHUNK = 50;

/** Where the feed learns of new cycles: the edge's pushed feed version. */
export type FeedCycles = Pick<FeedVersion, "lastCycleAtMs" | "onChange">;

/**
 * Feeds every open odds stream from the events service's cycles: while any stream is open, each new
 * cycle the feed version is told of (however many streams) reads the odds of every followed event
 * once per plan scope (in pages of 50 events) and hands each stream its part. A thousand streams on
 * one plan cost one read per cycle, not a thousand. A cycle whose read failed is tried again every
 * `retryMs`.
 */
export class OddsFeed {
  private readonly listeners = new Set<CycleListener>();
  private timer: NodeJS.Timeout | undefined;
  private stopFollowing: (() => void) | undefined;
  private lastCycleAtMs = 0;
  private delivering = false;

  constructor(
    private readonly events: EventsGateway,
    private readonly cycles: FeedCycles,
    private readonly retryMs: number,
    private readonly logger: Logger,
  ) {}

  /** The cycle last delivered to the streams (0 before the first). */
  get cycleAtMs(): number {
    return this.lastCycleAtMs;
  }

  /**
   * Follows cycles for `listener`, which already has the odds of `seenCycleAtMs` (its own first read).
   * A feed that was idle goes on from that cycle instead of reading it again for the new stream.
   */
  add(listener: CycleListener, seenCycleAtMs: number): void {
    this.listeners.add(listener);
    if (this.timer) return;
    this.lastCycleAtMs = Math.max(this.lastCycleAtMs, seenCycleAtMs);
    this.stopFollowing = this.cycles.onChange(() => void this.deliver());
    this.timer = setInterval(() => void this.deliver(), this.retryMs);
    this.timer.unref();
    void this.deliver();
  }

  remove(listener: CycleListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.stopFollowing?.();
    }
  }

  /** The odds of `eventIDs` as `caller`'s plan sees them now (events it cannot see are absent). */
  async read(caller: common.Caller, eventIDs: readonly string[]): Promise<OddsRead> {
    // An events service that does not say its pages' cycle: the one told of before reading (a lower bound).
    const toldAtMs = this.cycles.lastCycleAtMs;
    let cycleAtMs = Infinity;
    const unique = [...new Set(eventIDs)];
    const found = new Map<string, StreamedOdds>();
    for (let start = 0; start < unique.length; start += READ_CHUNK) {
      const chunk = unique.slice(start, start + READ_CHUNK);
      const page: common.JsonPage = await this.events.listEventsV1(
        toListEventsV1Request("odds", { event_id: chunk, limit: READ_CHUNK }, caller),
      );
      cycleAtMs = Math.min(cycleAtMs, page.cycleAtMs ?? toldAtMs);
      for (const item of page.items) {
        const json = Buffer.from(item).toString("utf8");
        const odds = JSON.parse(json) as v1.V1EventOdds;
        found.set(odds.event_id, { odds, json, objects: objectsOfEventOdds(odds) });
      }
    }
    return { odds: found, cycleAtMs: Number.isFinite(cycleAtMs) ? cycleAtMs : toldAtMs };
  }

  /** Delivers the feed's latest cycle, and any that came while it did, one at a time. */
  private async deliver(): Promise<void> {
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (this.listeners.size > 0 && this.cycles.lastCycleAtMs !== this.lastCycleAtMs) {
        const cycleAtMs = this.cycles.lastCycleAtMs;
        await this.fanOut();
        // Only once delivered: a cycle whose read failed is read again at the next retry.
        this.lastCycleAtMs = cycleAtMs;
      }
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, "odds stream cycle not read; retrying");
    } finally {
      this.delivering = false;
    }
  }

  /** One read per plan scope for the union of the events its streams follow. */
  private async fanOut(): Promise<void> {
    const byScope = new Map<string, CycleListener[]>();
    for (const listener of this.listeners) {
      const scope = scopeKey(listener.caller);
      byScope.set(scope, [...(byScope.get(scope) ?? []), listener]);
    }
    for (const group of byScope.values()) {
      const read = await this.read(
        group[0]!.caller,
        group.flatMap((listener) => listener.eventIDs),
      );
      for (const listener of group) listener.onCycle(read);
    }
  }
}

/** Callers with the same plan see the same odds; the key itself does not change them. */
function scopeKey(caller: common.Caller): string {
  return JSON.stringify({ ...caller, keyId: "" });
}
