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
 * What opens every "lastUpdatedAtMs" member of a JSON text. Inside a JSON string every quote is
 * escaped, so an unescaped `"lastUpdatedAtMs":` only ever opens a member name: no string value can match.
 */
const OBSERVATION_TIME_KEY = Buffer.from('"lastUpdatedAtMs":');
const ZERO = 0x30;
const MINUS = 0x2d;

function isDigit(byte: number): boolean {
  return byte >= ZERO && byte <= 0x39;
}

/** A byte of a JSON number (`-?\d+(\.\d+)?([eE][+-]?\d+)?`); a number starts with `-` or a digit. */
function inNumber(byte: number): boolean {
  return isDigit(byte) || byte === MINUS || byte === 0x2b || byte === 0x2e || byte === 0x45 || byte === 0x65;
}

/**
 * The UTF-8 bytes of the event last fingerprinted, reused: a full-scale cycle fingerprints ~750 events
 * of up to a few MB of JSON each. Grows to three bytes a character of the largest event's JSON.
 */
let scratch = Buffer.allocUnsafe(1 << 20);

/**
 * A hash of everything the event carries except its observation times: SHA-256 of its JSON with
 * every observation time written as `0`.
 */
export function contentFingerprint(event: EventState): string {
  // A plain stringify (a replacer function made V8 call back into JavaScript for each of an event's
  // ~10,000 members), its bytes written into the reused buffer and the times blanked there, in place:
  // a regex's copy of the text was a second string of the event's size, each in V8's old generation.
  const json = JSON.stringify(event);
  if (scratch.length < json.length * 3) scratch = Buffer.allocUnsafe(json.length * 3);
  const bytes = blankObservationTimes(scratch.subarray(0, scratch.write(json, 0, "utf8")));
  return createHash("sha256").update(bytes).digest("base64url");
}

/**
 * The JSON bytes with each observation time's number replaced by `0`, moved down in place. Bytes
 * from `kept` on are never written before they are read, so each search starts there or later.
 */
function blankObservationTimes(bytes: Buffer): Buffer {
  let written = 0;
  let kept = 0;
  let key = bytes.indexOf(OBSERVATION_TIME_KEY);
  while (key >= 0) {
    const start = key + OBSERVATION_TIME_KEY.length;
    const first = bytes[start] ?? 0;
    if (first === MINUS || isDigit(first)) {
      let end = start + 1;
      while (end < bytes.length && inNumber(bytes[end] as number)) end++;
      written += bytes.copy(bytes, written, kept, start);
      bytes[written++] = ZERO;
      kept = end;
    }
    key = bytes.indexOf(OBSERVATION_TIME_KEY, Math.max(kept, key + 1));
  }
  written += bytes.copy(bytes, written, kept);
  return bytes.subarray(0, written);
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
