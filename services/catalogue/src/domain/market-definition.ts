import { type objects, oddId } from "@odds/proto";
/**
 * What a market is, derived from its oddID alone:
 * `{statID}-{statEntityID}-{periodID}-{betTypeID}-{sideID}`.
 */

export type PropType = objects.PropType;

export type OddIDParts = oddId.OddIdParts;

/** The contract's Market without what depends on current prices (support, activity). */
export type MarketDefinition = Omit<objects.Market, "isSupported" | "activeEvents" | "support" | "bookmakers">;

/** What ingest knows about the entity of a side beyond the oddID (from the event it was read on). */
export interface MarketHints {
  playerID?: string;
  teamID?: string;
  /** Display name of the player, for the group name of a player prop. */
  playerName?: string;
  /** Long display name of the stat ("Both Teams To Score"); otherwise built from the statID. */
  statName?: string;
}

const FULL_GAME = "game";
const MAIN_BET_TYPES = new Set(["ml", "sp", "ou"]);
const SCORE_STAT = "points";
const MATCH_SIDES = new Set(["home", "away"]);

const BET_TYPE_NAMES: Record<string, string> = {
  ml: "Moneyline",
  sp: "Spread",
  ou: "Over/Under",
  ml3way: "3-Way Moneyline",
  yn: "Yes/No",
  eo: "Even/Odd",
  pick: "Pick",
  cs: "Correct Score",
};

const ORDINALS = ["", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th"];
const PERIOD_UNITS: Record<string, string> = {
  h: "Half",
  q: "Quarter",
  p: "Period",
  i: "Inning",
  s: "Set",
  r: "Round",
};

export const parseOddID = oddId.splitOddID;

/** home/away/all, a player (NAME_n_LEAGUE) or a team (TEAM_NAME_LEAGUE). */
export function entityKind(statEntityID: string, hints: MarketHints = {}): "side" | "player" | "team" | "other" {
  if (statEntityID === "home" || statEntityID === "away" || statEntityID === "all") return "side";
  if (hints.playerID === statEntityID) return "player";
  if (hints.teamID === statEntityID) return "team";
  if (oddId.isPlayerEntity(statEntityID)) return "player";
  if (/^[A-Z0-9_]+$/.test(statEntityID)) return "team";
  return "other";
}

/** Full-game moneyline and spread on a team, and the game total, all on points. */
function isMainShape(parts: OddIDParts): boolean {
  if (parts.statID !== SCORE_STAT || !MAIN_BET_TYPES.has(parts.betTypeID)) return false;
  return parts.betTypeID === "ou" ? parts.statEntityID === "all" : MATCH_SIDES.has(parts.statEntityID);
}

/** All sides of one market share a group (the contract grammar's marketGroupID). */
export const marketGroupID = oddId.marketGroupID;

export function periodName(periodID: string): string {
  if (periodID === FULL_GAME) return "Full Game";
  if (periodID === "reg") return "Regulation";
  if (periodID === "ot") return "Overtime";
  const firstN = /^1ix(\d)$/.exec(periodID);
  if (firstN) return `First ${firstN[1]} Innings`;
  const nth = /^(\d)([hqpisr])$/.exec(periodID);
  if (nth) return `${ORDINALS[Number(nth[1])]} ${PERIOD_UNITS[nth[2] as string]}`;
  return periodID.toUpperCase();
}

function statName(statID: string): string {
  return statID
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

function entityName(parts: OddIDParts, hints: MarketHints, groupID: string): string {
  const entity = groupID.split("-")[1] as string;
  if (entity === "all") return "";
  if (entity === "home") return "Home";
  if (entity === "away") return "Away";
  if (hints.playerName && hints.playerID === parts.statEntityID) return hints.playerName;
  return parts.statEntityID;
}

export function deriveMarket(oddID: string, hints: MarketHints = {}): MarketDefinition | undefined {
  const parts = parseOddID(oddID);
  if (!parts) return undefined;
  const kind = entityKind(parts.statEntityID, hints);
  const mainShape = isMainShape(parts);
  const isSubPeriod = parts.periodID !== FULL_GAME;
  const isMainMarket = mainShape && !isSubPeriod;
  const isMainDerivative = mainShape && isSubPeriod;
  const isProp = !mainShape;
  const groupID = marketGroupID(parts);
  const betTypeName = BET_TYPE_NAMES[parts.betTypeID] ?? parts.betTypeID.toUpperCase();
  const marketGroupName = [entityName(parts, hints, groupID), hints.statName || statName(parts.statID), betTypeName]
    .filter((word) => word.length > 0)
    .join(" ")
    .concat(isSubPeriod ? ` (${periodName(parts.periodID)})` : "");

  const definition: MarketDefinition = {
    oddID,
    ...parts,
    marketGroupID: groupID,
    marketGroupName,
    isMainMarket,
    isMainDerivative,
    isSubPeriod,
    isProp,
  };
  if (kind === "player") definition.playerID = parts.statEntityID;
  if (kind === "team") definition.teamID = parts.statEntityID;
  if (isProp) definition.propType = propTypeOf(groupID, kind);
  return definition;
}

/** Typed by the group's entity, so every side of a market has the same prop type. */
function propTypeOf(groupID: string, kind: ReturnType<typeof entityKind>): PropType {
  if (kind === "player") return "player_prop";
  if (kind === "team") return "team_prop";
  if (kind === "side") return groupID.split("-")[1] === "all" ? "game_prop" : "team_prop";
  return "other_prop";
}
