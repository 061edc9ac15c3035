// An event's content apart from when it was observed. Every cycle moves the observation times
// (info.lastUpdatedAt, each price's lastUpdatedAt) while most events' prices stay put: comparing
// content without them tells which events a cycle really changed, and the rest travel to the
// events service as their stamps alone.
import { createHash } from "node:crypto";
import type { EventState, SideOdds } from "./model";

/** When an event, and each bookmaker's prices in it, were last observed. */
export interface EventStamps {
  eventID: string;
  lastUpdatedAtMs: number;
  /** bookmakerID -> observed at (Unix ms). */
  bookmakers: Record<string, number>;
}

/**
 * Every "lastUpdatedAtMs" member of a JSON text. Inside a JSON string every quote is escaped, so
 * `{"` and `,"` only ever open a member name: no string value can match.
 */
const OBSERVATION_TIME_MEMBER = /([{,]"lastUpdatedAtMs":)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** A hash of everything the event carries except its observation times. */
export function contentFingerprint(event: EventState): string {
  // A plain stringify, then the times blanked: a replacer function made V8 call back into
  // JavaScript for each of an event's ~10,000 members.
  const json = JSON.stringify(event).replace(OBSERVATION_TIME_MEMBER, "$10");
  return createHash("sha256").update(json).digest("base64url");
}

export function observationStamps(event: EventState): EventStamps {
  const bookmakers: Record<string, number> = {};
  const note = (bookmakerID: string, ms: number) => {
    if (ms > (bookmakers[bookmakerID] ?? Number.NEGATIVE_INFINITY)) bookmakers[bookmakerID] = ms;
  };
  const sides: SideOdds[] = [...Object.values(event.odds), ...Object.values(event.closedOdds ?? {})];
  for (const side of sides) {
    for (const price of Object.values(side.byBookmaker)) note(price.bookmakerID, price.lastUpdatedAtMs);
    for (const line of Object.values(side.altLines)) {
      for (const price of Object.values(line)) note(price.bookmakerID, price.lastUpdatedAtMs);
    }
  }
  return { eventID: event.eventID, lastUpdatedAtMs: event.info.lastUpdatedAtMs, bookmakers };
}
