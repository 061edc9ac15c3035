// The snapshots of every source, ranked, and which source a bookmaker's prices come from.
import type { FeedBook, FeedEvent, FeedLeague, FeedSnapshot } from "../../sources/feed-source";
import type { BookObservation } from "../model";
import { mainLineObservations, normaliseBookQuotes, type NormalisedQuote } from "./quote";

export interface RankedSnapshot {
  sourceID: string;
  rank: number;
  snapshot: FeedSnapshot;
}

export interface EventFromSource {
  sourceID: string;
  rank: number;
  league: FeedLeague;
  event: FeedEvent;
}

/** The book a bookmaker's prices on one event are taken from. */
export interface ChosenBook {
  book: FeedBook;
  observedAtMs: number;
  quotes: NormalisedQuote[];
}

/** An event's books across its sources: the chosen one per bookmaker, and every observation for history. */
export interface EventBooks {
  chosen: Map<string, ChosenBook>;
  observations: BookObservation[];
  rejectedQuotes: number;
  /** (source, bookmaker) pairs with at least one quote. */
  sourceBookmakerCount: number;
}

/** One book of one source as history sees it, with its quotes in the grammar. */
export function observeBook(
  source: { sourceID: string; rank: number },
  league: FeedLeague,
  eventID: string,
  book: FeedBook,
): { observation: BookObservation; quotes: NormalisedQuote[]; rejectedQuotes: number } {
  const { quotes, rejectedQuotes } = normaliseBookQuotes(book);
  const observation: BookObservation = {
    eventID,
    bookmakerID: book.bookmaker,
    sourceID: source.sourceID,
    sourceRank: source.rank,
    observedAtMs: league.lastWriteAt.getTime(),
    quotes: mainLineObservations(quotes),
  };
  return { observation, quotes, rejectedQuotes };
}

/** Highest rank first; equal ranks by source id, so the choice is stable. */
export function byRank(sources: EventFromSource[]): EventFromSource[] {
  return [...sources].sort((a, b) => b.rank - a.rank || a.sourceID.localeCompare(b.sourceID));
}

/** Books of one event across its sources, given highest rank first. */
export function chooseBooks(sources: EventFromSource[]): EventBooks {
  const books: EventBooks = { chosen: new Map(), observations: [], rejectedQuotes: 0, sourceBookmakerCount: 0 };
  const feedsWithQuotes = new Set<string>();
  for (const source of sources) {
    for (const book of source.event.books) {
      const { observation, quotes, rejectedQuotes } = observeBook(source, source.league, source.event.eventID, book);
      books.observations.push(observation);
      books.rejectedQuotes += rejectedQuotes;
      if (quotes.length > 0) feedsWithQuotes.add(`${source.sourceID}|${book.bookmaker}`);
      // A bookmaker's prices come from the best source that has any.
      const chosen = books.chosen.get(book.bookmaker);
      if (!chosen || (chosen.quotes.length === 0 && quotes.length > 0)) {
        books.chosen.set(book.bookmaker, { book, observedAtMs: observation.observedAtMs, quotes });
      }
    }
  }
  books.sourceBookmakerCount = feedsWithQuotes.size;
  return books;
}
