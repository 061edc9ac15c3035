import type { RenderingSides } from "./packed-rendering";

/**
 * Where each side of `odds` sits in an event's rendered JSON (as `contractJson` writes it), so a
 * read that keeps a few sides parses those sides and the event's other members, not the whole
 * event: a fully priced event is 1-2 MB of JSON, the two sides a narrow query asks for a few KB.
 *
 * Found without a full scan: the members before `odds` are skipped value by value (small), the
 * sides are found by `{"oddID":` (the first key of every side and of nothing else in an event; in
 * a string its quotes would be escaped), and the last side is scanned to its end. Anything
 * unexpected gives no layout, and the caller parses the whole event as before.
 */
export interface OddsLayout {
  /** End of the bytes before the first side: they end in `"odds":{`. */
  headEnd: number;
  /** Start of the bytes after the last side: they start with the `}` closing `odds`. */
  tailStart: number;
  /** Each side's key (its oddID), in the event's order, and its value's byte range. */
  sides: { oddID: string; start: number; end: number }[];
}

/** The sides of an unpacked rendering, found by its layout; undefined where `oddsLayoutOf` finds none. */
export function sidesOfJson(json: Buffer): RenderingSides | undefined {
  const layout = oddsLayoutOf(json);
  if (!layout) return undefined;
  return {
    oddIDs: () => layout.sides.map((side) => side.oddID),
    sideValues: (sides) =>
      sides.map((side) => {
        const at = layout.sides[side];
        if (!at) throw new RangeError(`no side ${side} in this rendering`);
        return json.subarray(at.start, at.end);
      }),
    withoutOdds: () => Buffer.concat([json.subarray(0, layout.headEnd), json.subarray(layout.tailStart)]),
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SIDE_START = Buffer.from('{"oddID":"');

/** A member of a JSON object: its key, where the member starts (its key's quote), where its value starts and ends. */
export interface JsonMember {
  key: string;
  start: number;
  valueStart: number;
  end: number;
}

/**
 * The members of a JSON object as JSON.stringify writes it (no whitespace), in order; undefined when `json` is not
 * one. Each value is skipped, not parsed.
 */
export function objectMembersOf(json: Buffer): JsonMember[] | undefined {
  if (json[0] !== OPEN_BRACE) return undefined;
  const members: JsonMember[] = [];
  if (json[1] === CLOSE_BRACE) return json.length === 2 ? members : undefined;
  let start = 1;
  for (;;) {
    const keyEnd = memberKeyEnd(json, start);
    if (keyEnd === undefined) return undefined;
    const end = jsonValueEnd(json, keyEnd + 1);
    if (end === undefined) return undefined;
    const key = JSON.parse(json.toString("utf8", start, keyEnd)) as string;
    members.push({ key, start, valueStart: keyEnd + 1, end });
    if (json[end] === CLOSE_BRACE) return end === json.length - 1 ? members : undefined;
    if (json[end] !== COMMA) return undefined;
    start = end + 1;
  }
}

/**
 * What JSON.stringify writes for `{ ...JSON.parse(json), ...replaced }`, from `json` laid out as `members`: the
 * members `replaced` names written from its values where they stand (left out where undefined), those `json` lacks
 * after them, and every other member's bytes copied as they are, not parsed and written again.
 */
export function objectJsonWith(
  json: Buffer,
  members: readonly JsonMember[],
  replaced: Record<string, unknown>,
): Buffer {
  const written: string[] = [];
  const pieces: Buffer[] = [];
  const write = (key: string, value: unknown) => {
    if (value === undefined) return;
    pieces.push(Buffer.from(`${pieces.length === 0 ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}`));
  };
  for (const member of members) {
    if (Object.hasOwn(replaced, member.key)) {
      written.push(member.key);
      write(member.key, replaced[member.key]);
    } else {
      pieces.push(
        pieces.length === 0 ? json.subarray(member.start, member.end) : json.subarray(member.start - 1, member.end),
      );
    }
  }
  for (const [key, value] of Object.entries(replaced)) if (!written.includes(key)) write(key, value);
  return Buffer.concat([OBJECT_OPEN, ...pieces, OBJECT_CLOSE]);
}

const OBJECT_OPEN = Buffer.from("{");
const OBJECT_CLOSE = Buffer.from("}");

/** The end of the member key starting at `start` (`"<key>"`, before its colon). */
function memberKeyEnd(json: Buffer, start: number): number | undefined {
  const keyEnd = jsonStringEnd(json, start);
  return keyEnd === undefined || json[keyEnd] !== COLON ? undefined : keyEnd;
}

export function oddsLayoutOf(json: Buffer): OddsLayout | undefined {
  if (json[0] !== OPEN_BRACE) return undefined;
  // The event's members before odds.
  let at = 1;
  for (;;) {
    const keyEnd = memberKeyEnd(json, at);
    if (keyEnd === undefined) return undefined;
    const isOdds = keyEnd - at === 6 && json.toString("latin1", at, keyEnd) === '"odds"';
    at = keyEnd + 1;
    if (isOdds) break;
    const valueEnd = jsonValueEnd(json, at);
    if (valueEnd === undefined || json[valueEnd] !== COMMA) return undefined;
    at = valueEnd + 1;
  }
  if (json[at] !== OPEN_BRACE) return undefined;
  const headEnd = at + 1;
  const sides: OddsLayout["sides"] = [];
  if (json[headEnd] === CLOSE_BRACE) return { headEnd, tailStart: headEnd, sides };
  let keyStart = headEnd;
  for (;;) {
    const side = sideAt(json, keyStart);
    if (!side) return undefined;
    const next = json.indexOf(SIDE_START, side.start + 1);
    if (next < 0) {
      // The last side: scanned to its end, which must close odds.
      const end = jsonValueEnd(json, side.start);
      if (end === undefined || json[end] !== CLOSE_BRACE) return undefined;
      sides.push({ ...side, end });
      return { headEnd, tailStart: end, sides };
    }
    // The next side's member is `,"<oddID>":{"oddID":"<oddID>"...`: its key ends right before `next`.
    const nextKeyStart = memberKeyStartBefore(json, next);
    if (nextKeyStart === undefined || json[nextKeyStart - 1] !== COMMA) return undefined;
    sides.push({ ...side, end: nextKeyStart - 1 });
    keyStart = nextKeyStart;
  }
}

/** The side whose member key starts at `keyStart`, when its value starts with its own oddID. */
function sideAt(json: Buffer, keyStart: number): { oddID: string; start: number } | undefined {
  const keyEnd = memberKeyEnd(json, keyStart);
  if (keyEnd === undefined) return undefined;
  const start = keyEnd + 1;
  const key = json.subarray(keyStart, keyEnd);
  // `{"oddID":` then the same JSON string as the key (so the side's oddID is its key).
  const idStart = start + SIDE_START.length - 1;
  if (json.compare(SIDE_START, 0, SIDE_START.length - 1, start, idStart) !== 0) return undefined;
  if (json.compare(key, 0, key.length, idStart, idStart + key.length) !== 0) return undefined;
  const oddID = JSON.parse(key.toString("utf8")) as unknown;
  return typeof oddID === "string" ? { oddID, start } : undefined;
}

/** Where the member key ending just before `valueStart` (`"<key>":`) starts, for a key without escapes. */
function memberKeyStartBefore(json: Buffer, valueStart: number): number | undefined {
  if (json[valueStart - 1] !== COLON || json[valueStart - 2] !== QUOTE) return undefined;
  const open = json.lastIndexOf(QUOTE, valueStart - 3);
  if (open < 0) return undefined;
  const escape = json.indexOf(BACKSLASH, open);
  return escape >= 0 && escape < valueStart ? undefined : open;
}

/** The index just past the JSON string starting at `at`; undefined when none starts there or it does not end. */
export function jsonStringEnd(json: Buffer, at: number): number | undefined {
  if (json[at] !== QUOTE) return undefined;
  for (let i = at + 1; i < json.length; i++) {
    const byte = json[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i + 1;
  }
  return undefined;
}

/** The index just past the JSON value starting at `at` (as JSON.stringify writes it: no whitespace). */
function jsonValueEnd(json: Buffer, at: number): number | undefined {
  const first = json[at];
  if (first === QUOTE) return jsonStringEnd(json, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let i = at;
    while (i < json.length && json[i] !== COMMA && json[i] !== CLOSE_BRACE && json[i] !== CLOSE_BRACKET) i++;
    return i > at ? i : undefined;
  }
  let depth = 0;
  for (let i = at; i < json.length; i++) {
    const byte = json[i];
    if (byte === QUOTE) {
      const end = jsonStringEnd(json, i);
      if (end === undefined) return undefined;
      i = end - 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}
