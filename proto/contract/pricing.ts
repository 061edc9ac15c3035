// Consensus and fair prices of a market. Pure functions of the bookmakers' main-line quotes.
import { formatLine, impliedProbability, probabilityToAmerican } from "./odds-format";

export interface SideQuote {
  bookmakerID: string;
  decimal: number;
  line?: number;
  available: boolean;
}

export interface Consensus {
  /** Median implied probability (vig included) of the bookmakers with the side open. */
  probability: number;
  /** At least one bookmaker has the side open. */
  available: boolean;
  line?: number;
}

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Consensus of one side: the median implied probability across bookmakers with the side open,
 * and the median of their lines (the lower middle one, so the line is one a bookmaker really
 * offers). When every bookmaker has the side suspended the suspended prices stand in and
 * `available` is false. Undefined when no bookmaker lists the side.
 */
export function consensusOf(quotes: SideQuote[]): Consensus | undefined {
  const open = quotes.filter((q) => q.available);
  const pool = open.length > 0 ? open : quotes;
  if (pool.length === 0) return undefined;
  const probability = median(pool.map((q) => impliedProbability(q.decimal)).sort((a, b) => a - b));
  const lines = pool.flatMap((q) => (q.line === undefined ? [] : [q.line])).sort((a, b) => a - b);
  const line = lines.length > 0 ? lines[Math.floor((lines.length - 1) / 2)] : undefined;
  return { probability, available: open.length > 0, line };
}

/** Removes the margin: implied probabilities of all sides of a market scaled to sum to 1. */
export function deVig(impliedProbabilities: number[]): number[] {
  const total = impliedProbabilities.reduce((sum, p) => sum + p, 0);
  if (impliedProbabilities.length < 2 || !(total > 0)) {
    throw new RangeError("de-vigging needs at least two sides with positive probabilities");
  }
  return impliedProbabilities.map((p) => p / total);
}

export interface FairPrice {
  probability: number;
  line?: number;
}

export interface MarketFair {
  /** Whether sharp or exchange bookmakers priced every side (otherwise the consensus was de-vigged). */
  fromSharp: boolean;
  bySide: Map<string, FairPrice>;
}

/**
 * Fair prices of one market (every side of it, keyed by oddID): de-vigged across all sides from
 * each sharp or exchange bookmaker that has every side open, averaged over those bookmakers.
 * When none does, the de-vigged consensus stands in and `fromSharp` is false. Undefined when the
 * market has fewer than two sides or a side has no consensus.
 */
export function fairPricesOf(
  sides: Map<string, SideQuote[]>,
  consensus: Map<string, Consensus>,
  sharpBookmakers: readonly string[],
): MarketFair | undefined {
  const oddIDs = [...sides.keys()];
  if (oddIDs.length < 2) return undefined;
  const sharpSets: Array<{ probabilities: number[]; lines: Array<number | undefined> }> = [];
  for (const bookmakerID of sharpBookmakers) {
    const quotes = oddIDs.map((oddID) => sides.get(oddID)?.find((q) => q.bookmakerID === bookmakerID && q.available));
    if (quotes.some((q) => q === undefined)) continue;
    const priced = quotes as SideQuote[];
    sharpSets.push({
      probabilities: deVig(priced.map((q) => impliedProbability(q.decimal))),
      lines: priced.map((q) => q.line),
    });
  }
  const bySide = new Map<string, FairPrice>();
  if (sharpSets.length > 0) {
    oddIDs.forEach((oddID, i) => {
      const probability = sharpSets.reduce((sum, set) => sum + (set.probabilities[i] ?? 0), 0) / sharpSets.length;
      bySide.set(oddID, { probability, line: sharpSets[0]?.lines[i] });
    });
    return { fromSharp: true, bySide };
  }
  const consensusSides = oddIDs.map((oddID) => consensus.get(oddID));
  if (consensusSides.some((c) => c === undefined)) return undefined;
  const probabilities = deVig((consensusSides as Consensus[]).map((c) => c.probability));
  oddIDs.forEach((oddID, i) =>
    bySide.set(oddID, { probability: probabilities[i] ?? 0, line: consensus.get(oddID)?.line }),
  );
  return { fromSharp: false, bySide };
}

/** One side's consensus and fair price as the contract's Odds fields carry them (absent: undefined). */
export interface SidePriceFields {
  bookOdds: string;
  bookOddsAvailable: boolean;
  bookSpread?: string;
  bookOverUnder?: string;
  fairOdds?: string;
  fairOddsAvailable: boolean;
  fairSpread?: string;
  fairOverUnder?: string;
}

/** A line in the slot its bet type uses: spreads signed ("+6.5"), totals plain. */
export function lineFields(betTypeID: string, line: number | undefined): { spread?: string; overUnder?: string } {
  if (line === undefined) return {};
  return betTypeID === "sp" ? { spread: formatLine(line, true) } : { overUnder: formatLine(line, false) };
}

/** The contract's price fields of one side from its consensus and its market's fair prices. */
export function sidePriceFields(
  betTypeID: string,
  consensus: Consensus,
  fair: MarketFair | undefined,
  oddID: string,
): SidePriceFields {
  const book = lineFields(betTypeID, consensus.line);
  const sideFair = fair?.bySide.get(oddID);
  const fairLine = lineFields(betTypeID, sideFair?.line);
  return {
    bookOdds: probabilityToAmerican(Math.min(0.999, consensus.probability)),
    bookOddsAvailable: consensus.available,
    bookSpread: book.spread,
    bookOverUnder: book.overUnder,
    fairOdds: sideFair ? probabilityToAmerican(Math.min(0.999, Math.max(0.001, sideFair.probability))) : undefined,
    fairOddsAvailable: fair?.fromSharp ?? false,
    fairSpread: sideFair ? fairLine.spread : undefined,
    fairOverUnder: sideFair ? fairLine.overUnder : undefined,
  };
}

/** The sharp and exchange bookmakers fair prices are taken from, unless FAIR_ODDS_BOOKMAKERS names others. */
export const DEFAULT_FAIR_ODDS_BOOKMAKERS: readonly string[] = ["pinnacle", "betfair_ex_au"];
