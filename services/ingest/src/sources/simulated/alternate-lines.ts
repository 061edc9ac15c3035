// Alternate lines: the ladder of spreads and totals a book hangs either side of its main line
// (AFL line -23.5 with -5.5 ... -41.5 beside it; "20+, 25+, 30+ disposals" as player overs).
import { COMPETITOR_SPORTS } from "./competitors";
import type { MarketModel } from "./markets";

/** Distance between rungs of a team-level ladder, per sport (points, goals, runs, games or rounds). */
const RUNG: Record<string, number> = {
  AUSSIE_RULES: 6,
  RUGBY_LEAGUE: 2,
  SOCCER: 1,
  CRICKET: 10,
  ...Object.fromEntries(COMPETITOR_SPORTS.map((s) => [s.sport.sportID, s.altLineStep])),
};

/** Rungs either side of the main line: the full-game line and total carry the deepest ladder. */
function rungsOf(market: MarketModel): number {
  if (market.group === "main") return 4;
  return 2;
}

/**
 * The alternate lines around `mainLine`, nearest first on each side. Markets without a line, and
 * the specials (margins, odd/even), have none; a total never goes to zero or below.
 */
export function alternateLines(market: MarketModel, sportID: string, mainLine: number): number[] {
  if (market.mainLine === undefined || market.group === "special" || market.betType === "ML") return [];
  const step = market.group === "player" ? (market.lineStep ?? 1) : (RUNG[sportID] ?? 1);
  const lines: number[] = [];
  for (let rung = 1; rung <= rungsOf(market); rung++) {
    for (const line of [mainLine - rung * step, mainLine + rung * step]) {
      if (market.betType === "OU" && line <= 0) continue;
      lines.push(line);
    }
  }
  return lines;
}
