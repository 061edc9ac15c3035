// One feed quote in the oddID grammar, and what history records of it.
import { oddId } from "@odds/proto";
import type { FeedBook, FeedQuote } from "../../sources/feed-source";
import type { QuoteObservation } from "../model";
import { toStatEntityID, toToken } from "../odd-id";

export interface NormalisedQuote {
  oddID: string;
  decimal: number;
  line?: number;
  mainLine: boolean;
  layDecimal?: number;
  maxStake?: number;
  available: boolean;
  deeplink: string;
}

/** A feed quote in the oddID grammar, or undefined when a token does not fit it. */
export function normaliseQuote(quote: FeedQuote): NormalisedQuote | undefined {
  try {
    const oddID = oddId.formatOddID({
      statID: toToken(quote.stat),
      statEntityID: toStatEntityID(quote.entity),
      periodID: toToken(quote.period),
      betTypeID: toToken(quote.betType),
      sideID: toToken(quote.side),
    });
    if (!(quote.decimal > 1)) return undefined;
    return {
      oddID,
      decimal: quote.decimal,
      line: quote.line,
      mainLine: quote.mainLine,
      layDecimal: quote.layDecimal,
      maxStake: quote.maxStake,
      available: !quote.suspended,
      deeplink: quote.deeplink ?? "",
    };
  } catch {
    return undefined;
  }
}

/** The quotes of one book that fit the grammar, and how many did not. */
export function normaliseBookQuotes(book: FeedBook): { quotes: NormalisedQuote[]; rejectedQuotes: number } {
  const quotes: NormalisedQuote[] = [];
  let rejectedQuotes = 0;
  for (const quote of book.quotes) {
    const normalised = normaliseQuote(quote);
    if (normalised) quotes.push(normalised);
    else rejectedQuotes += 1;
  }
  return { quotes, rejectedQuotes };
}

/** History records main lines only: alternate lines would be ticks of a different series each. */
export function mainLineObservations(quotes: NormalisedQuote[]): QuoteObservation[] {
  return quotes.filter((quote) => quote.mainLine).map(toObservation);
}

function toObservation(quote: NormalisedQuote): QuoteObservation {
  return {
    oddID: quote.oddID,
    decimalOdds: quote.decimal,
    line: quote.line,
    isMainLine: quote.mainLine,
    layOdds: quote.layDecimal,
    maxStake: quote.maxStake,
    available: quote.available,
  };
}
