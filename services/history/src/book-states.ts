import { ensureIndexes } from "@odds/platform";
import type { Collection, Db } from "mongodb";
import { isOnlyDuplicateIds } from "./tick-tier";
import type { HeldQuote } from "./ticks";

/** The quotes one bookmaker holds open on one event through one source, as of its last snapshot. */
export interface BookState {
  key: string;
  eventID: string;
  bookmakerID: string;
  sourceID: string;
  observedAtMs: number;
  quotes: Map<string, HeldQuote>;
}

interface BookStateDocument {
  _id: string;
  eventID: string;
  bookmakerID: string;
  sourceID: string;
  observedAt: Date;
  quotes: HeldQuote[];
}

export function bookKeyOf(eventID: string, bookmakerID: string, sourceID: string): string {
  return `${eventID}|${bookmakerID}|${sourceID}`;
}

/**
 * Last-quote state, persisted in the live shard and kept in memory per active event so
 * the hot write path reads nothing: an event's books are loaded once (by eventID
 * equality) and evicted after it has been idle for `idleEvictMs`.
 */
export class BookStateStore {
  private readonly collection: Collection<BookStateDocument>;
  private readonly events = new Map<string, { books: Map<string, BookState>; touchedAtMs: number }>();

  constructor(
    db: Db,
    private readonly idleEvictMs = 6 * 3_600_000,
  ) {
    this.collection = db.collection<BookStateDocument>("bookStates");
  }

  ensureIndexes(): Promise<void> {
    return ensureIndexes(this.collection.db, { bookStates: [{ key: { eventID: 1 }, name: "event" }] });
  }

  /** The books held for these events, loading the ones not in memory. */
  async load(eventIDs: Iterable<string>, nowMs = Date.now()): Promise<void> {
    const missing = [...new Set(eventIDs)].filter((eventID) => !this.events.has(eventID));
    const loaded = await Promise.all(
      missing.map(async (eventID) => [eventID, await this.collection.find({ eventID }).toArray()] as const),
    );
    for (const [eventID, docs] of loaded) {
      const books = new Map(docs.map((doc) => [doc._id, fromDocument(doc)]));
      this.events.set(eventID, { books, touchedAtMs: nowMs });
    }
    for (const eventID of eventIDs) {
      const entry = this.events.get(eventID);
      if (entry) entry.touchedAtMs = nowMs;
    }
  }

  /** Only valid after `load` for the event. */
  get(eventID: string, key: string): BookState | undefined {
    return this.events.get(eventID)?.books.get(key);
  }

  /** Adopts states in memory (an unchanged snapshot only advances observedAt; persisting that buys nothing). */
  adopt(states: BookState[]): void {
    for (const state of states) this.events.get(state.eventID)?.books.set(state.key, state);
  }

  /**
   * Persists states whose quotes changed, then adopts them in memory. A stored state newer than the one
   * written is never regressed (another writer got there first; its duplicate-key
   * refusal is expected and ignored).
   */
  async save(states: BookState[]): Promise<void> {
    if (states.length === 0) return;
    const stale = new Set<string>();
    try {
      await this.collection.bulkWrite(
        states.map((state) => ({
          updateOne: {
            filter: { _id: state.key, observedAt: { $lte: new Date(state.observedAtMs) } },
            update: { $set: toDocument(state) },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    } catch (err) {
      if (!isOnlyDuplicateIds(err)) throw err;
      const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      for (const writeError of writeErrors) stale.add(states[writeError.index]!.eventID);
    }
    this.adopt(states);
    // Another writer holds newer state for these events: reload them on their next snapshot.
    for (const eventID of stale) this.events.delete(eventID);
  }

  evictIdle(nowMs = Date.now()): void {
    for (const [eventID, entry] of this.events) {
      if (nowMs - entry.touchedAtMs > this.idleEvictMs) this.events.delete(eventID);
    }
  }
}

function fromDocument(doc: BookStateDocument): BookState {
  return {
    key: doc._id,
    eventID: doc.eventID,
    bookmakerID: doc.bookmakerID,
    sourceID: doc.sourceID,
    observedAtMs: doc.observedAt.getTime(),
    quotes: new Map(doc.quotes.map((quote) => [quote.oddID, quote])),
  };
}

function toDocument(state: BookState): Omit<BookStateDocument, "_id"> {
  return {
    eventID: state.eventID,
    bookmakerID: state.bookmakerID,
    sourceID: state.sourceID,
    observedAt: new Date(state.observedAtMs),
    quotes: [...state.quotes.values()],
  };
}
