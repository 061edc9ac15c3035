// The Odds API market keys and outcome names -> the oddID grammar's tokens. Team markets are fixed
// (h2h, spreads, totals and their alternates and period variants); player markets come from the
// configured table (market key -> stat and bet type), the player from the outcome's description.
import type { FeedQuote } from "../feed-source";

export interface PlayerMarket {
  stat: string;
  betType: "ou" | "yn";
}

export interface MarketTable {
  /** Period suffix of a market key (q1, h1, ...) -> our periodID (1q, 1h, ...). */
  periods: Record<string, string>;
  playerMarkets: Record<string, PlayerMarket>;
}

export type MarketKind =
  | { kind: "team"; base: "h2h" | "h2h_3_way" | "spreads" | "totals"; period: string; mainLine: boolean }
  | { kind: "lay"; period: string }
  | { kind: "player"; market: PlayerMarket };

const TEAM_MARKET = /^(alternate_)?(h2h_lay|h2h_3_way|h2h|spreads|totals)(?:_([a-z]\d))?$/;

/** What a market key means, or undefined for a market we do not map. */
export function marketKind(key: string, table: MarketTable): MarketKind | undefined {
  const player = table.playerMarkets[key];
  if (player) return { kind: "player", market: player };
  const match = TEAM_MARKET.exec(key);
  if (!match) return undefined;
  const [, alternate, base, suffix] = match;
  const period = suffix === undefined ? "game" : table.periods[suffix];
  if (!period) return undefined;
  if (base === "h2h_lay") return alternate ? undefined : { kind: "lay", period };
  if (alternate && (base === "h2h" || base === "h2h_3_way")) return undefined;
  return { kind: "team", base: base as "h2h" | "h2h_3_way" | "spreads" | "totals", period, mainLine: !alternate };
}

export interface OutcomeContext {
  homeTeam: string;
  awayTeam: string;
  /** The market has a Draw outcome: its sides are three-way. */
  threeWay: boolean;
  /** The feed's player name -> the entity the quote is about (resolved to a playerID later). */
  playerEntity: (name: string) => string;
}

type QuoteTokens = Pick<FeedQuote, "stat" | "entity" | "period" | "betType" | "side" | "line">;

/** One outcome's tokens, or undefined when its name does not fit the market. */
export function outcomeTokens(
  kind: Exclude<MarketKind, { kind: "lay" }>,
  outcome: { name: string; point?: number; description?: string },
  context: OutcomeContext,
): QuoteTokens | undefined {
  if (kind.kind === "player") {
    if (!outcome.description) return undefined;
    const side = outcome.name.trim().toLowerCase();
    const sides = kind.market.betType === "ou" ? ["over", "under"] : ["yes", "no"];
    if (!sides.includes(side)) return undefined;
    if (kind.market.betType === "ou" && outcome.point === undefined) return undefined;
    return {
      stat: kind.market.stat,
      entity: context.playerEntity(outcome.description),
      period: "game",
      betType: kind.market.betType,
      side,
      line: kind.market.betType === "ou" ? outcome.point : undefined,
    };
  }
  const participant =
    outcome.name === context.homeTeam ? "home" : outcome.name === context.awayTeam ? "away" : undefined;
  switch (kind.base) {
    case "h2h":
    case "h2h_3_way": {
      const threeWay = kind.base === "h2h_3_way" || context.threeWay;
      const betType = threeWay ? "ml3way" : "ml";
      if (threeWay && outcome.name.toLowerCase() === "draw")
        return { stat: "points", entity: "all", period: kind.period, betType, side: "draw" };
      if (!participant) return undefined;
      return { stat: "points", entity: participant, period: kind.period, betType, side: participant };
    }
    case "spreads":
      if (!participant || outcome.point === undefined) return undefined;
      return {
        stat: "points",
        entity: participant,
        period: kind.period,
        betType: "sp",
        side: participant,
        line: outcome.point,
      };
    case "totals": {
      const side = outcome.name.toLowerCase();
      if ((side !== "over" && side !== "under") || outcome.point === undefined) return undefined;
      return { stat: "points", entity: "all", period: kind.period, betType: "ou", side, line: outcome.point };
    }
  }
}
