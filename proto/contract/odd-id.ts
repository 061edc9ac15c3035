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

/**
 * oddIDs already validated, with their parts (frozen: every caller shares them). Ingest builds and
 * decomposes each of a cycle's ~750,000 quotes' oddIDs several times, over ~7,000 distinct ones.
 * Two generations of plain maps bound it: when the young one fills, it becomes the old one and the
 * old one is dropped; a hit in the old one is carried over. (An LRU cache's bookkeeping on every
 * hit cost more than the regexes it saved.)
 */
export const ODD_ID_MEMO_SIZE = 100_000;

class ValidatedOddIDs {
  private young = new Map<string, Readonly<OddIdParts>>();
  private old = new Map<string, Readonly<OddIdParts>>();

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(oddID: string): Readonly<OddIdParts> | undefined {
    const parts = this.young.get(oddID);
    if (parts !== undefined) return parts;
    const carried = this.old.get(oddID);
    if (carried !== undefined) this.set(oddID, carried);
    return carried;
  }

  set(oddID: string, parts: Readonly<OddIdParts>): void {
    if (this.young.size >= ODD_ID_MEMO_SIZE / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(oddID, parts);
  }
}

const validated = new ValidatedOddIDs();

/** How many validated oddIDs the memo holds now (never more than ODD_ID_MEMO_SIZE). */
export function memoisedOddIDs(): number {
  return validated.size;
}

function validatedParts(oddID: string, parts: OddIdParts): Readonly<OddIdParts> {
  for (const [slot, value] of Object.entries(parts)) {
    const ok = slot === "statEntityID" ? TOKEN.test(value) || PLAYER_ENTITY.test(value) : TOKEN.test(value);
    if (!ok) throw new InvalidOddIdError(`${slot} is not a valid token: ${JSON.stringify(value)}`);
  }
  const frozen = Object.freeze({ ...parts });
  validated.set(oddID, frozen);
  return frozen;
}

export function formatOddID(parts: OddIdParts): string {
  const oddID = `${parts.statID}-${parts.statEntityID}-${parts.periodID}-${parts.betTypeID}-${parts.sideID}`;
  // A memo hit is sound: valid slots hold no "-", so a joined string with four dashes splits into
  // exactly the parts it was validated with.
  if (validated.get(oddID) === undefined) validatedParts(oddID, parts);
  return oddID;
}

/** The parts of a valid oddID (shared and frozen), or InvalidOddIdError. */
export function parseOddID(oddID: string): Readonly<OddIdParts> {
  const known = validated.get(oddID);
  if (known) return known;
  const slots = oddID.split("-");
  if (slots.length !== 5) throw new InvalidOddIdError(`an oddID has five slots: ${JSON.stringify(oddID)}`);
  const [statID = "", statEntityID = "", periodID = "", betTypeID = "", sideID = ""] = slots;
  return validatedParts(oddID, { statID, statEntityID, periodID, betTypeID, sideID });
}

export function isPlayerEntity(statEntityID: string): boolean {
  return PLAYER_ENTITY.test(statEntityID);
}

/** Bet types whose sides are the participants themselves (the entity changes with the side). */
const PARTICIPANT_BET_TYPES = new Set(["ml", "ml3way", "sp"]);

/** Groups every side of one market: the de-vig and opposing-side unit, and the catalogue's marketGroupID. */
export function marketGroupID(parts: Readonly<OddIdParts>): string {
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
export function opposingOddID(parts: Readonly<OddIdParts>, sidesInMarket: number): string | undefined {
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
