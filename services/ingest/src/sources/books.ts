import type { FeedBook, FeedQuote } from "./feed-source";

/** The book of `bookmakerID` in `books`, opened empty (no bet slip yet) on first use. */
export function bookOf(
  books: Map<string, FeedBook>,
  bookmakerID: string,
  eventName: string,
  eventUrl: string,
): FeedBook {
  let book = books.get(bookmakerID);
  if (!book) {
    book = { bookmaker: bookmakerID, eventName, eventUrl, betslip: { kind: "none", urlTemplate: "" }, quotes: [] };
    books.set(bookmakerID, book);
  }
  return book;
}

/** Adds quotes to a book; one with a deeplink makes the book's bet slip a deeplink one. */
export function addQuotes(book: FeedBook, quotes: FeedQuote[]): void {
  book.quotes.push(...quotes);
  if (quotes.some((q) => q.deeplink)) book.betslip = { kind: "deeplink", urlTemplate: "" };
}
