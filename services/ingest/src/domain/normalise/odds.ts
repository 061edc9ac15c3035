// Prices every side of an event: each bookmaker's main and alternate lines, the consensus across
// bookmakers and the fair price of each market.
import { oddId, oddsFormat, pricing } from "@odds/proto";
import { marketName } from "../market-names";
import type { BookmakerPrice, SideOdds } from "../model";
import type { ChosenBook } from "./sources";
import type { PeriodState } from "./status";

const { decimalToAmerican, formatLine } = oddsFormat;
const { consensusOf, fairPricesOf, lineFields, sidePriceFields } = pricing;
type Consensus = pricing.Consensus;
type MarketFair = pricing.MarketFair;
type SideQuote = pricing.SideQuote;

/** Stats the results carry, so markets on them can be graded. */
const GRADED_STATS = new Set([
  "points",
  "margin",
  "bothteamstoscore",
  "disposals",
  "goals",
  "tries",
  "shotsontarget",
  "wickets",
  "marks",
  "tackles",
  "saves",
  "cards",
  "firsttryscorer",
  "games",
  "method",
  "rounds",
  "distance",
]);

export interface PricingContext {
  sportID: string;
  players: Map<string, string>;
  teamNames: { home: string; away: string };
  periodState(periodID: string): PeriodState;
  fairOddsBookmakers: readonly string[];
}

/** Every bookmaker's prices of one event, keyed by oddID. */
interface BookPrices {
  /** Main-line quotes, the input of consensus and fair prices. */
  mainQuotes: Map<string, SideQuote[]>;
  /** oddID -> bookmakerID -> main-line price. */
  mainPrices: Map<string, Record<string, BookmakerPrice>>;
  /** oddID -> line -> bookmakerID -> alternate-line price. */
  altLines: Map<string, Record<string, Record<string, BookmakerPrice>>>;
}

export function priceEvent(books: Map<string, ChosenBook>, context: PricingContext): Record<string, SideOdds> {
  const prices = collectPrices(books);
  const { consensus, markets } = consensusByMarket(prices.mainQuotes);
  const odds: Record<string, SideOdds> = {};
  for (const sides of markets.values()) {
    const fair = fairPricesOf(sides, consensus, context.fairOddsBookmakers);
    for (const oddID of [...sides.keys()].sort()) {
      const side = consensus.get(oddID);
      if (side) odds[oddID] = sideOdds(oddID, sides.size, side, fair, prices, context);
    }
  }
  return odds;
}

function collectPrices(books: Map<string, ChosenBook>): BookPrices {
  const prices: BookPrices = { mainQuotes: new Map(), mainPrices: new Map(), altLines: new Map() };
  for (const [bookmakerID, { book, observedAtMs, quotes }] of books) {
    for (const quote of quotes) {
      const { betTypeID } = oddId.parseOddID(quote.oddID);
      const price: BookmakerPrice = {
        bookmakerID,
        odds: decimalToAmerican(quote.decimal),
        decimal: quote.decimal,
        available: quote.available,
        lastUpdatedAtMs: observedAtMs,
        eventName: book.eventName,
        deeplink: quote.deeplink,
        ...lineFields(betTypeID, quote.line),
      };
      if (quote.mainLine) {
        const side = { bookmakerID, decimal: quote.decimal, line: quote.line, available: quote.available };
        const list = prices.mainQuotes.get(quote.oddID);
        if (list) list.push(side);
        else prices.mainQuotes.set(quote.oddID, [side]);
        const byBookmaker = prices.mainPrices.get(quote.oddID);
        if (byBookmaker) byBookmaker[bookmakerID] = price;
        else prices.mainPrices.set(quote.oddID, { [bookmakerID]: price });
      } else if (quote.line !== undefined) {
        let lines = prices.altLines.get(quote.oddID);
        if (!lines) prices.altLines.set(quote.oddID, (lines = {}));
        // Filled in place: copying the line's record for each bookmaker cost O(books²) objects a line.
        (lines[formatLine(quote.line, betTypeID === "sp")] ??= {})[bookmakerID] = price;
      }
    }
  }
  return prices;
}

/** Consensus of every side, and the sides grouped by market (all sides of one market together). */
function consensusByMarket(mainQuotes: Map<string, SideQuote[]>): {
  consensus: Map<string, Consensus>;
  markets: Map<string, Map<string, SideQuote[]>>;
} {
  const consensus = new Map<string, Consensus>();
  const markets = new Map<string, Map<string, SideQuote[]>>();
  for (const [oddID, quotes] of mainQuotes) {
    const sideConsensus = consensusOf(quotes);
    if (sideConsensus) consensus.set(oddID, sideConsensus);
    const marketID = oddId.marketGroupID(oddId.parseOddID(oddID));
    const sides = markets.get(marketID) ?? new Map<string, SideQuote[]>();
    sides.set(oddID, quotes);
    markets.set(marketID, sides);
  }
  return { consensus, markets };
}

function sideOdds(
  oddID: string,
  sideCount: number,
  side: Consensus,
  fair: MarketFair | undefined,
  prices: BookPrices,
  context: PricingContext,
): SideOdds {
  const parts = oddId.parseOddID(oddID);
  const playerID = oddId.isPlayerEntity(parts.statEntityID) ? parts.statEntityID : undefined;
  const period = context.periodState(parts.periodID);
  return {
    oddID,
    opposingOddID: oddId.opposingOddID(parts, sideCount),
    marketName: sideMarketName(parts, playerID, context),
    ...parts,
    playerID,
    ...sidePriceFields(parts.betTypeID, side, fair, oddID),
    started: period.started,
    ended: period.ended,
    cancelled: period.cancelled,
    scoringSupported: GRADED_STATS.has(parts.statID),
    byBookmaker: prices.mainPrices.get(oddID) ?? {},
    altLines: prices.altLines.get(oddID) ?? {},
  };
}

function sideMarketName(parts: oddId.OddIdParts, playerID: string | undefined, context: PricingContext): string {
  const teamName =
    parts.statEntityID === "home"
      ? context.teamNames.home
      : parts.statEntityID === "away"
        ? context.teamNames.away
        : undefined;
  return marketName(parts, {
    sportID: context.sportID,
    playerName: playerID ? context.players.get(playerID) : undefined,
    teamName,
  });
}
