import { inSpan, WriteQueue } from "@odds/platform";
import { bookKeyOf, type BookState, type BookStateStore } from "./book-states";
import type { EventRef, EventRefStore } from "./event-refs";
import { HeldQuotes } from "./held-quotes";
import { ticksRecorded } from "./metrics";
import type { EventDay, TickTier } from "./tick-tier";
import { CAPTURE_START_MS, diffSnapshot, type BookSnapshot, type TickDocument, type TickKind } from "./ticks";

export interface RecordResult {
  ticksRecorded: number;
}

/** A call's snapshots of one event, made (decoded) only when the recorder reaches the event. */
export interface EventSnapshots {
  eventID: string;
  snapshots(): BookSnapshot[];
}

/**
 * A call's snapshots grouped by event, in the order each event first appears; each group made by `toSnapshot`
 * when it is read.
 */
export function snapshotsByEvent<T>(
  items: Iterable<T>,
  eventIDOf: (item: T) => string,
  toSnapshot: (item: T) => BookSnapshot,
): EventSnapshots[] {
  const grouped = new Map<string, T[]>();
  for (const item of items) {
    const eventID = eventIDOf(item);
    const group = grouped.get(eventID);
    if (group) group.push(item);
    else grouped.set(eventID, [item]);
  }
  return [...grouped].map(([eventID, group]) => ({ eventID, snapshots: () => group.map(toSnapshot) }));
}

/**
 * Turns observed book snapshots into ticks. Ticks are written (by deterministic id) before
 * the in-memory last-quote state moves on, so after a failure a replay finishes the job
 * without duplicating anything. Snapshots older than the state held
 * for their book are replays of the past and record nothing, so state never regresses.
 * Calls are serialised: each one compares against the state the previous one left.
 */
export class QuoteRecorder {
  private readonly writes = new WriteQueue();

  constructor(
    private readonly live: TickTier,
    private readonly books: BookStateStore,
    private readonly eventRefs: EventRefStore,
  ) {}

  record(refs: EventRef[], events: readonly EventSnapshots[]): Promise<RecordResult> {
    return this.writes.run(() =>
      inSpan("history.recordQuotes", { "odds.events": events.length }, () => this.recordNow(refs, events)),
    );
  }

  /**
   * Event by event: its snapshots made, compared with its books and its ticks written, so one event's
   * snapshots and ticks are garbage before the next event's are made (a call carries up to 30,000 quotes).
   * The books move on, and the days are noted, only once every event's ticks are written: a call that
   * fails part-way is sent again whole, compares with the same books and rewrites the same ticks (by id,
   * as no-ops), so its days are noted and no tick is lost or doubled.
   */
  private async recordNow(refs: EventRef[], events: readonly EventSnapshots[]): Promise<RecordResult> {
    await this.eventRefs.save(refs);
    await this.books.load(events.map((event) => event.eventID));

    const next = new Map<string, BookState>();
    const days = new Map<string, EventDay>();
    const kinds = new Map<TickKind, number>();
    let recorded = 0;
    for (const event of events) {
      const ticks = this.diff(event, next);
      await this.live.upsertTicks(ticks);
      for (const { day, eventID, kind } of ticks) {
        days.set(`${day}|${eventID}`, { day, eventID });
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      recorded += ticks.length;
    }

    await this.live.noteDays(days.values());
    this.books.adopt(next.values());
    this.books.evictIdle();
    for (const [kind, count] of kinds) ticksRecorded.inc({ kind }, count);
    return { ticksRecorded: recorded };
  }

  /** One event's ticks, its snapshots taken in time order; the books they leave go to `next`. */
  private diff(event: EventSnapshots, next: Map<string, BookState>): TickDocument[] {
    const inOrder = event
      .snapshots()
      .filter((snapshot) => snapshot.observedAtMs >= CAPTURE_START_MS)
      .sort((a, b) => a.observedAtMs - b.observedAtMs);
    const ticks: TickDocument[] = [];
    for (const snapshot of inOrder) {
      const key = bookKeyOf(snapshot.eventID, snapshot.bookmakerID, snapshot.sourceID);
      const held = next.get(key) ?? this.books.get(snapshot.eventID, key);
      if (held && snapshot.observedAtMs < held.observedAtMs) continue;
      const diff = diffSnapshot(held?.quotes ?? HeldQuotes.EMPTY, snapshot);
      ticks.push(...diff.ticks);
      next.set(key, {
        key,
        eventID: snapshot.eventID,
        bookmakerID: snapshot.bookmakerID,
        sourceID: snapshot.sourceID,
        observedAtMs: snapshot.observedAtMs,
        quotes: diff.held,
      });
    }
    return ticks;
  }
}
