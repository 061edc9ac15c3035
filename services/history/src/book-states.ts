import type { TickTier } from "./tick-tier";
import { storedTicksOf, type StoredTick } from "./tick-buckets";
import { HeldQuotes } from "./held-quotes";
import type { HeldQuote, TickDocument } from "./ticks";

/** The quotes one bookmaker holds open on one event through one source, as of its last snapshot. */
export interface BookState {
  key: string;
  eventID: string;
  bookmakerID: string;
  sourceID: string;
  observedAtMs: number;
  quotes: HeldQuotes;
}

export function bookKeyOf(eventID: string, bookmakerID: string, sourceID: string): string {
  return `${eventID}|${bookmakerID}|${sourceID}`;
}

/** Events whose books are rebuilt from their ticks at the same time. */
const REBUILD_CONCURRENCY = 8;

/**
 * Last-quote state for active events, held in memory. The tick log IS the durable state:
 * the last tick of each (oddID, bookmaker, source) says what is held (nothing after a
 * close), so an event's books are rebuilt from its live ticks the first time a process
 * sees it, and nothing but ticks is written on the hot path (FerretDB applies updates
 * one by one, and large ones slowly; batched inserts are cheap). Events idle for
 * `idleEvictMs` are dropped from memory.
 */
export class BookStateStore {
  private readonly events = new Map<string, { books: Map<string, BookState>; touchedAtMs: number }>();

  constructor(
    private readonly live: TickTier,
    private readonly idleEvictMs = 6 * 3_600_000,
  ) {}

  /** Makes the books of these events available to `get`, rebuilding the ones not in memory. */
  async load(eventIDs: Iterable<string>, nowMs = Date.now()): Promise<void> {
    const wanted = [...new Set(eventIDs)];
    const missing = wanted.filter((eventID) => !this.events.has(eventID));
    // A few events at a time: after a restart the first cycle names every event, and reading every
    // event's ticks at once held the whole live tier decoded in memory.
    for (let i = 0; i < missing.length; i += REBUILD_CONCURRENCY) {
      const rebuilt = await Promise.all(
        missing
          .slice(i, i + REBUILD_CONCURRENCY)
          .map(async (eventID) => [eventID, await this.rebuild(eventID)] as const),
      );
      for (const [eventID, books] of rebuilt) this.events.set(eventID, { books, touchedAtMs: nowMs });
    }
    for (const eventID of wanted) this.events.get(eventID)!.touchedAtMs = nowMs;
  }

  /**
   * An event's books from its live ticks, folded an hour's bucket at a time: only the packed buckets
   * and one hour of parsed ticks are held, not every tick of the event (64,000 for the densest). The
   * ticks are folded as their bucket stores them, in its history order, not made into `TickDocument`s.
   */
  private async rebuild(eventID: string): Promise<Map<string, BookState>> {
    const fold = new BookFold();
    for (const bucket of await this.live.bucketsOfEvent(eventID)) fold.add(eventID, storedTicksOf(bucket));
    return fold.books();
  }

  /** Only valid after `load` for the event. */
  get(eventID: string, key: string): BookState | undefined {
    return this.events.get(eventID)?.books.get(key);
  }

  /** Adopts states once their ticks are written. */
  adopt(states: Iterable<BookState>): void {
    for (const state of states) this.events.get(state.eventID)?.books.set(state.key, state);
  }

  evictIdle(nowMs = Date.now()): void {
    for (const [eventID, entry] of this.events) {
      if (nowMs - entry.touchedAtMs > this.idleEvictMs) this.events.delete(eventID);
    }
  }
}

/** Folds ticks, in any order, into the quotes each book holds (ties in time keep their order). */
export function booksFromTicks(ticks: readonly TickDocument[]): Map<string, BookState> {
  const fold = new BookFold();
  const ordered = [...ticks].sort((a, b) => a.changedAt.getTime() - b.changedAt.getTime());
  for (const { eventID, changedAt, ...tick } of ordered)
    fold.add(eventID, [{ ...tick, changedAt: changedAt.getTime() }]);
  return fold.books();
}

/** What the fold reads of a tick. */
type FoldedTick = Pick<
  StoredTick,
  | "oddID"
  | "bookmakerID"
  | "sourceID"
  | "changedAt"
  | "kind"
  | "decimalOdds"
  | "line"
  | "isMainLine"
  | "layOdds"
  | "maxStake"
>;

/**
 * The quotes each book of an event holds after its ticks, fed in batches in history order: every tick
 * of a batch is newer than every tick of the batches before it (an hour's bucket after the hours before),
 * and a batch is in time order (a bucket's ticks are). Only each quote's last tick is kept while folding,
 * and made a held quote at the end.
 */
class BookFold {
  private readonly folded = new Map<string, { book: Omit<BookState, "quotes">; last: Map<string, FoldedTick> }>();

  add(eventID: string, ticks: readonly FoldedTick[]): void {
    for (const tick of ticks) {
      const key = bookKeyOf(eventID, tick.bookmakerID, tick.sourceID);
      let entry = this.folded.get(key);
      if (!entry) {
        const book = { key, eventID, bookmakerID: tick.bookmakerID, sourceID: tick.sourceID, observedAtMs: 0 };
        entry = { book, last: new Map() };
        this.folded.set(key, entry);
      }
      entry.book.observedAtMs = Math.max(entry.book.observedAtMs, tick.changedAt);
      if (tick.kind === "close" || tick.decimalOdds === null || tick.decimalOdds === undefined) {
        entry.last.delete(tick.oddID);
      } else {
        entry.last.set(tick.oddID, tick);
      }
    }
  }

  books(): Map<string, BookState> {
    const books = new Map<string, BookState>();
    for (const [key, { book, last }] of this.folded)
      books.set(key, { ...book, quotes: HeldQuotes.of([...last.values()].map(heldQuoteOf)) });
    return books;
  }
}

/** The quote a tick leaves held (a tick that leaves none is not folded in). */
function heldQuoteOf(tick: FoldedTick): HeldQuote {
  const held: HeldQuote = { oddID: tick.oddID, decimalOdds: tick.decimalOdds! };
  if (tick.line !== null && tick.line !== undefined) held.line = tick.line;
  if (tick.isMainLine !== null && tick.isMainLine !== undefined) held.isMainLine = tick.isMainLine;
  if (tick.layOdds !== null && tick.layOdds !== undefined) held.layOdds = tick.layOdds;
  if (tick.maxStake !== null && tick.maxStake !== undefined) held.maxStake = tick.maxStake;
  return held;
}
