import { inSpan, WriteQueue } from "@odds/platform";
import { bookKeyOf, type BookState, type BookStateStore } from "./book-states";
import type { EventRef, EventRefStore } from "./event-refs";
import { HeldQuotes } from "./held-quotes";
import { ticksRecorded } from "./metrics";
import type { TickTier } from "./tick-tier";
import { CAPTURE_START_MS, diffSnapshot, type BookSnapshot, type TickDocument } from "./ticks";

export interface RecordResult {
  ticksRecorded: number;
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

  record(refs: EventRef[], snapshots: BookSnapshot[]): Promise<RecordResult> {
    return this.writes.run(() =>
      inSpan("history.recordQuotes", { "odds.snapshots": snapshots.length }, () => this.recordNow(refs, snapshots)),
    );
  }

  private async recordNow(refs: EventRef[], snapshots: BookSnapshot[]): Promise<RecordResult> {
    await this.eventRefs.save(refs);
    const inOrder = snapshots
      .filter((snapshot) => snapshot.observedAtMs >= CAPTURE_START_MS)
      .sort((a, b) => a.observedAtMs - b.observedAtMs);
    await this.books.load(inOrder.map((snapshot) => snapshot.eventID));

    const next = new Map<string, BookState>();
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

    await this.live.upsertTicks(ticks);
    await this.live.noteDays(ticks);
    this.books.adopt(next.values());
    this.books.evictIdle();
    for (const tick of ticks) ticksRecorded.inc({ kind: tick.kind });
    return { ticksRecorded: ticks.length };
  }
}
