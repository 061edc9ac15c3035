// The oddID grammar: {statID}-{statEntityID}-{periodID}-{betTypeID}-{sideID}.
// Every slot is a lower-case token, except a playerID in the statEntityID slot, which keeps the
// feed's own upper-case ID (NICK_DAICOS_1_AFL) so that it matches /players/ and the playerID filter.

export interface OddIdParts {
  statID: string;
  statEntityID: string;
  periodID: string;
  betTypeID: string;
  sideID: string;
}

const TOKEN = /^[a-z0-9_]+$/;
const PLAYER_ENTITY = /^[A-Z0-9_]+_\d+_[A-Z0-9_]+$/;
const ENTITY_CLASSES = new Set(["home", "away", "all"]);

export class InvalidOddIdError extends Error {
  override name = "InvalidOddIdError";
}

export function formatOddID(parts: OddIdParts): string {
  for (const [slot, value] of Object.entries(parts)) {
    const ok = slot === "statEntityID" ? TOKEN.test(value) || PLAYER_ENTITY.test(value) : TOKEN.test(value);
    if (!ok) throw new InvalidOddIdError(`${slot} is not a valid token: ${JSON.stringify(value)}`);
  }
  return `${parts.statID}-${parts.statEntityID}-${parts.periodID}-${parts.betTypeID}-${parts.sideID}`;
}

export function parseOddID(oddID: string): OddIdParts {
  const slots = oddID.split("-");
  if (slots.length !== 5) throw new InvalidOddIdError(`an oddID has five slots: ${JSON.stringify(oddID)}`);
  const [statID = "", statEntityID = "", periodID = "", betTypeID = "", sideID = ""] = slots;
  const parts = { statID, statEntityID, periodID, betTypeID, sideID };
  formatOddID(parts);
  return parts;
}

/** A feed token (any case, spaces or hyphens) as a grammar token. */
export function toToken(feedToken: string): string {
  return feedToken
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
}

/** statEntityID: home, away and all are lower-cased; a playerID or teamID keeps the feed's case. */
export function toStatEntityID(feedEntity: string): string {
  const token = toToken(feedEntity);
  return ENTITY_CLASSES.has(token) ? token : feedEntity.trim();
}

export function isPlayerEntity(statEntityID: string): boolean {
  return PLAYER_ENTITY.test(statEntityID);
}

/** Bet types whose sides are the participants themselves (the entity changes with the side). */
const PARTICIPANT_BET_TYPES = new Set(["ml", "ml3way", "sp"]);

/** Groups every side of one market: the de-vig and opposing-side unit, and the catalogue's marketGroupID. */
export function marketGroupID(parts: OddIdParts): string {
  const entity = PARTICIPANT_BET_TYPES.has(parts.betTypeID) ? "all" : parts.statEntityID;
  return `${parts.statID}-${entity}-${parts.periodID}-${parts.betTypeID}`;
}

const OPPOSITES: Record<string, string> = {
  home: "away",
  away: "home",
  over: "under",
  under: "over",
  yes: "no",
  no: "yes",
  odd: "even",
  even: "odd",
};

/**
 * The other side of a two-way market, or undefined for pick-N and three-way markets. For
 * participant bet types the entity follows the side (points-home-game-ml-home <-> points-away-game-ml-away).
 */
export function opposingOddID(parts: OddIdParts, sidesInMarket: number): string | undefined {
  if (sidesInMarket > 2 || parts.betTypeID === "pick" || parts.betTypeID === "ml3way") return undefined;
  const side = OPPOSITES[parts.sideID];
  if (!side) return undefined;
  const entity = PARTICIPANT_BET_TYPES.has(parts.betTypeID) ? side : parts.statEntityID;
  return formatOddID({ ...parts, statEntityID: entity, sideID: side });
}
