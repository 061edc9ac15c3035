import { oddId, pricing } from "@odds/proto";
import type { ContractOdds } from "./render";

/**
 * Consensus and fair prices as a plan sees them: recomputed over the bookmakers the plan shows,
 * so a key never reads a median (or a fair price, or a count) that hidden bookmakers moved.
 * The same rules as ingest's (the contracts package's pricing), applied to the main-line
 * prices each event carries per bookmaker. Sides no visible bookmaker lists are left out.
 */
export function pricesForPlan(
  odds: Record<string, ContractOdds>,
  visible: ReadonlySet<string>,
  fairOddsBookmakers: readonly string[],
): Record<string, ContractOdds> {
  const markets = new Map<string, Map<string, pricing.SideQuote[]>>();
  const consensus = new Map<string, pricing.Consensus>();
  for (const [oddID, side] of Object.entries(odds)) {
    const quotes = visibleQuotes(side, visible);
    const sideConsensus = pricing.consensusOf(quotes);
    if (!sideConsensus) continue;
    consensus.set(oddID, sideConsensus);
    const group = oddId.marketGroupID(side);
    const sides = markets.get(group) ?? new Map<string, pricing.SideQuote[]>();
    sides.set(oddID, quotes);
    markets.set(group, sides);
  }
  const repriced: Record<string, ContractOdds> = {};
  for (const sides of markets.values()) {
    const fair = pricing.fairPricesOf(sides, consensus, fairOddsBookmakers);
    for (const oddID of sides.keys()) {
      const side = odds[oddID] as ContractOdds;
      const fields = pricing.sidePriceFields(side.betTypeID, consensus.get(oddID) as pricing.Consensus, fair, oddID);
      repriced[oddID] = {
        ...side,
        bookOdds: fields.bookOdds,
        bookOddsAvailable: fields.bookOddsAvailable,
        bookSpread: fields.bookSpread ?? null,
        bookOverUnder: fields.bookOverUnder ?? null,
        fairOdds: fields.fairOdds ?? null,
        fairOddsAvailable: fields.fairOddsAvailable,
        fairSpread: fields.fairSpread ?? null,
        fairOverUnder: fields.fairOverUnder ?? null,
      };
    }
  }
  // The event's own side order.
  return Object.fromEntries(Object.keys(odds).flatMap((oddID) => (repriced[oddID] ? [[oddID, repriced[oddID]]] : [])));
}

function visibleQuotes(side: ContractOdds, visible: ReadonlySet<string>): pricing.SideQuote[] {
  const quotes: pricing.SideQuote[] = [];
  for (const [bookmakerID, quote] of Object.entries(side.byBookmaker)) {
    if (!visible.has(bookmakerID)) continue;
    const line = quote.spread ?? quote.overUnder;
    quotes.push({
      bookmakerID,
      decimal: quote.decimal,
      available: quote.available,
      ...(line === undefined ? {} : { line: Number(line) }),
    });
  }
  return quotes;
}
