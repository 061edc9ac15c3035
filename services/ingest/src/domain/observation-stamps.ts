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

/** A hash of everything the event carries except its observation times. */
export function contentFingerprint(event: EventState): string {
  const json = JSON.stringify(event, (key, value: unknown) => (key === "lastUpdatedAtMs" ? 0 : value));
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
