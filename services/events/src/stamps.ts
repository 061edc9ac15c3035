import { createHash } from "node:crypto";
import type { events } from "@odds/proto";
import type { ContractEvent } from "./render";

/**
 * When an event was last observed: `info.lastUpdatedAt`, and the `lastUpdatedAt` of each
 * bookmaker's prices (a bookmaker's prices in one event come from one source, observed at once).
 * Every cycle moves them, while most events' content stays the same: keeping them apart from the
 * content lets a cycle restamp an event instead of rewriting and re-rendering it.
 */
export interface ObservationStamps {
  lastUpdatedAtMs: number;
  /** bookmakerID -> when its prices were observed. */
  bookmakers: ReadonlyMap<string, number>;
}

const INFO_KEY = Buffer.from('"info":{');
const LAST_UPDATED_KEY = Buffer.from('"lastUpdatedAt":"');
const BOOKMAKER_KEY = Buffer.from('{"bookmakerID":"');
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
/** `Date.prototype.toISOString()` of any instant from 1970 to 9999: 2026-11-21T09:00:00.000Z. */
const ISO_LENGTH = 24;

/** The stamps an event's contract carries. */
export function stampsOf(event: ContractEvent): ObservationStamps {
  const bookmakers = new Map<string, number>();
  const note = (bookmakerID: string, iso: string) => {
    const ms = Date.parse(iso);
    if (ms > (bookmakers.get(bookmakerID) ?? Number.NEGATIVE_INFINITY)) bookmakers.set(bookmakerID, ms);
  };
  for (const side of Object.values(event.odds)) {
    for (const [bookmakerID, price] of Object.entries(side.byBookmaker)) note(bookmakerID, price.lastUpdatedAt);
    for (const line of Object.values(side.altLines ?? {})) {
      for (const [bookmakerID, price] of Object.entries(line.byBookmaker)) note(bookmakerID, price.lastUpdatedAt);
    }
  }
  return { lastUpdatedAtMs: Date.parse(event.info.lastUpdatedAt), bookmakers };
}

/** The stamps `stampsOf(renderEvent(event))` reads, taken from the message without rendering or parsing a time. */
export function stampsOfEvent(event: events.Event): ObservationStamps {
  const bookmakers = new Map<string, number>();
  const note = (byBookmaker: Record<string, events.BookmakerOdds>) => {
    for (const [key, quote] of Object.entries(byBookmaker)) {
      const bookmakerID = quote.bookmakerId || key;
      if (quote.lastUpdatedAtMs > (bookmakers.get(bookmakerID) ?? Number.NEGATIVE_INFINITY))
        bookmakers.set(bookmakerID, quote.lastUpdatedAtMs);
    }
  };
  for (const side of Object.values(event.odds)) {
    note(side.byBookmaker);
    for (const line of Object.values(side.altLines)) note(line.byBookmaker);
  }
  return { lastUpdatedAtMs: event.info?.lastUpdatedAtMs ?? 0, bookmakers };
}

/** The stamps written out, bookmakers in order: equal for equal stamps. */
export function stampsKey(stamps: ObservationStamps): string {
  const bookmakers = [...stamps.bookmakers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${stamps.lastUpdatedAtMs};${bookmakers.map(([bookmakerID, ms]) => `${bookmakerID}=${ms}`).join(",")}`;
}

/** Stamps never move back: a replayed or late cycle leaves newer ones in place. */
export function newerStamps(held: ObservationStamps, incoming: ObservationStamps): ObservationStamps | undefined {
  let moved = incoming.lastUpdatedAtMs > held.lastUpdatedAtMs;
  const bookmakers = new Map(held.bookmakers);
  for (const [bookmakerID, ms] of incoming.bookmakers) {
    // Only bookmakers the content has: stamps name prices, they never add any.
    const heldMs = held.bookmakers.get(bookmakerID);
    if (heldMs !== undefined && ms > heldMs) {
      bookmakers.set(bookmakerID, ms);
      moved = true;
    }
  }
  if (!moved) return undefined;
  return { lastUpdatedAtMs: Math.max(held.lastUpdatedAtMs, incoming.lastUpdatedAtMs), bookmakers };
}

/**
 * Where an event's rendered JSON (any shape of it) carries its stamps: the offset of info's ISO time
 * and of each price's, by the bookmaker it names. Found by a scan of the bytes, no parse. Restamping
 * writes ISO times of the same length, which hold no quote or brace, so the layout is a function of
 * the bytes' content alone: bytes unpacked again from the same packed rendering, at any stamps,
 * have the layout found the first time.
 */
export interface StampLayout {
  /** Where info's time starts, if the rendering has one. */
  info: number | undefined;
  /** bookmakerID -> where each of its prices' times starts. */
  bookmakers: ReadonlyMap<string, Uint32Array>;
}

export function stampLayoutOf(json: Buffer): StampLayout {
  let info: number | undefined;
  const bookmakers = new Map<string, number[]>();
  scanStamps(json, {
    info: (at) => (info = at),
    price: (at, idStart, idEnd) => {
      const bookmakerID = json.toString("latin1", idStart, idEnd);
      const offsets = bookmakers.get(bookmakerID);
      if (offsets) offsets.push(at);
      else bookmakers.set(bookmakerID, [at]);
    },
  });
  return {
    info,
    bookmakers: new Map(Array.from(bookmakers, ([bookmakerID, offsets]) => [bookmakerID, Uint32Array.from(offsets)])),
  };
}

/**
 * Each ISO time a rendering carries, by where it starts: info's, then each price's in the bytes'
 * order, with where the bookmakerID it names sits (read only by those who need it).
 */
function scanStamps(
  json: Buffer,
  found: { info(at: number): void; price(at: number, idStart: number, idEnd: number): void },
): void {
  const info = json.indexOf(INFO_KEY);
  if (info >= 0) {
    const at = json.indexOf(LAST_UPDATED_KEY, info);
    if (at >= 0) found.info(at + LAST_UPDATED_KEY.length);
  }
  for (let at = json.indexOf(BOOKMAKER_KEY); at >= 0; at = json.indexOf(BOOKMAKER_KEY, at + 1)) {
    const idStart = at + BOOKMAKER_KEY.length;
    const idEnd = json.indexOf(QUOTE, idStart);
    const stamp = json.indexOf(LAST_UPDATED_KEY, idEnd);
    const objectEnd = json.indexOf(CLOSE_BRACE, idEnd);
    // The price object's own lastUpdatedAt: before the object closes (price objects hold no nested objects).
    if (stamp < 0 || (objectEnd >= 0 && stamp > objectEnd)) continue;
    found.price(stamp + LAST_UPDATED_KEY.length, idStart, idEnd);
  }
}

/**
 * An event's rendered JSON (any shape of it) with the given stamps written in place of the ones it
 * carries: same length, no parse, so restamping costs a scan of the bytes (none given their
 * `layout`, found before) and a copy unless `inPlace`. `stamps === null` writes the epoch
 * everywhere: the stamp-free form (`contentHashOf` hashes it).
 */
export function restampJson(
  json: Buffer,
  stamps: ObservationStamps | null,
  options: { inPlace?: boolean; layout?: StampLayout } = {},
): Buffer {
  const out = options.inPlace ? json : Buffer.from(json);
  const layout = options.layout ?? stampLayoutOf(out);
  const write = (ms: number, offsets: ArrayLike<number>) => {
    const iso = isoBytes(ms);
    for (let index = 0; index < offsets.length; index++) iso.copy(out, offsets[index], 0, ISO_LENGTH);
  };
  // Info's first: where info has no time of its own, the time found after it is a price's, which the price's wins.
  if (layout.info !== undefined) write(stamps === null ? 0 : stamps.lastUpdatedAtMs, [layout.info]);
  for (const [bookmakerID, offsets] of layout.bookmakers) {
    const ms = stamps === null ? 0 : stamps.bookmakers.get(bookmakerID);
    if (ms !== undefined) write(ms, offsets);
  }
  return out;
}

/**
 * The hash of an event's content: SHA-256 of its JSON with every stamp at the epoch, the bytes
 * `restampJson(json, null)` makes. They are made in a scratch buffer this module keeps, as large as
 * the largest event hashed so far (2.5 MB in the benchmark's world, whose priced events average 0.7
 * MB), and hashed in one call. Hashed span by span instead, a priced event's thousand-odd stamps
 * cost as many calls into the hash, more than the copy; a fresh copy each time would be as much
 * garbage an event.
 */
export function contentHashOf(json: Buffer): string {
  if (hashScratch.length < json.length) hashScratch = Buffer.allocUnsafeSlow(json.length);
  const stampFree = hashScratch.subarray(0, json.copy(hashScratch));
  // Info's time may also be a price's (info without one of its own): written twice, the same bytes.
  const blank = (at: number) => stampFree.set(EPOCH_ISO, at);
  scanStamps(stampFree, { info: blank, price: blank });
  return createHash("sha256").update(stampFree).digest("base64url");
}

/** `contentHashOf`'s scratch: never shared, since the hash is taken before the function returns. */
let hashScratch = Buffer.alloc(0);

function isoBytes(ms: number): Buffer {
  return Buffer.from(new Date(ms).toISOString(), "latin1");
}

const EPOCH_ISO = isoBytes(0);
