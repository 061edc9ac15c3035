// The oddID grammar of the public contract: {statID}-{statEntityID}-{periodID}-{betTypeID}-{sideID}.
// One module for every service that builds, decomposes or filters oddIDs, so they agree.
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
export const ENTITY_CLASSES: ReadonlySet<string> = new Set(["home", "away", "all"]);

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

/** The literal that, in the statEntityID slot of an oddID filter, matches every player. */
export const PLAYER_ID_WILDCARD = "PLAYER_ID";

/** Lenient decomposition for filters and stored data: undefined when `oddID` has not five slots. */
export function splitOddID(oddID: string): OddIdParts | undefined {
  const slots = oddID.split("-");
  if (slots.length !== 5 || slots.some((slot) => slot.length === 0)) return undefined;
  const [statID, statEntityID, periodID, betTypeID, sideID] = slots as [string, string, string, string, string];
  return { statID, statEntityID, periodID, betTypeID, sideID };
}

/** One oddID filter entry: an exact oddID, or PLAYER_ID in the statEntityID slot matching any player prop. */
export function matchesOddIDPattern(pattern: string, oddID: string): boolean {
  if (pattern === oddID) return true;
  const wanted = splitOddID(pattern);
  if (wanted?.statEntityID !== PLAYER_ID_WILDCARD) return false;
  const candidate = splitOddID(oddID);
  return (
    candidate !== undefined &&
    isPlayerEntity(candidate.statEntityID) &&
    candidate.statID === wanted.statID &&
    candidate.periodID === wanted.periodID &&
    candidate.betTypeID === wanted.betTypeID &&
    candidate.sideID === wanted.sideID
  );
}

/** The whole oddID filter of a request: an empty list matches everything. */
export function oddIDFilter(patterns: readonly string[]): (oddID: string) => boolean {
  if (patterns.length === 0) return () => true;
  const exact = new Set(patterns);
  const wildcards = patterns.filter((pattern) => splitOddID(pattern)?.statEntityID === PLAYER_ID_WILDCARD);
  return (oddID) => exact.has(oddID) || wildcards.some((pattern) => matchesOddIDPattern(pattern, oddID));
}
