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
 * Where an event's rendered JSON (any shape of it) carries its stamps: the offset of each ISO time,
 * info's (`bookmakerID` undefined) and each price's, with the bookmaker it names. Found by a scan
 * of the bytes, no parse; in the order found, which is not the bytes' order.
 */
function* stampsIn(json: Buffer): Generator<{ at: number; bookmakerID?: () => string }> {
  const info = json.indexOf(INFO_KEY);
  if (info >= 0) {
    const at = json.indexOf(LAST_UPDATED_KEY, info);
    if (at >= 0) yield { at: at + LAST_UPDATED_KEY.length };
  }
  for (let at = json.indexOf(BOOKMAKER_KEY); at >= 0; at = json.indexOf(BOOKMAKER_KEY, at + 1)) {
    const idStart = at + BOOKMAKER_KEY.length;
    const idEnd = json.indexOf(QUOTE, idStart);
    const stamp = json.indexOf(LAST_UPDATED_KEY, idEnd);
    const objectEnd = json.indexOf(CLOSE_BRACE, idEnd);
    // The price object's own lastUpdatedAt: before the object closes (price objects hold no nested objects).
    if (stamp < 0 || (objectEnd >= 0 && stamp > objectEnd)) continue;
    yield { at: stamp + LAST_UPDATED_KEY.length, bookmakerID: () => json.toString("latin1", idStart, idEnd) };
  }
}

/**
 * An event's rendered JSON (any shape of it) with the given stamps written in place of the ones it
 * carries: same length, no parse, so restamping costs a scan of the bytes (and a copy unless `inPlace`).
 * `stamps === null` writes the epoch everywhere: the stamp-free form (`contentHashOf` hashes it).
 */
export function restampJson(
  json: Buffer,
  stamps: ObservationStamps | null,
  options: { inPlace?: boolean } = {},
): Buffer {
  const out = options.inPlace ? json : Buffer.from(json);
  // An event has a handful of distinct times over thousands of prices: format each once.
  const formatted = new Map<number, Buffer>();
  for (const { at, bookmakerID } of stampsIn(out)) {
    const ms = stamps === null ? 0 : bookmakerID ? stamps.bookmakers.get(bookmakerID()) : stamps.lastUpdatedAtMs;
    if (ms === undefined) continue;
    let iso = formatted.get(ms);
    if (!iso) formatted.set(ms, (iso = isoBytes(ms)));
    iso.copy(out, at, 0, ISO_LENGTH);
  }
  return out;
}

/**
 * The hash of an event's content: SHA-256 of its JSON with every stamp at the epoch, the bytes
 * `restampJson(json, null)` makes, hashed span by span instead of from that copy.
 */
export function contentHashOf(json: Buffer): string {
  const offsets = [...new Set(Array.from(stampsIn(json), ({ at }) => at))].sort((a, b) => a - b);
  const hash = createHash("sha256");
  let from = 0;
  for (const at of offsets) {
    hash.update(json.subarray(from, at)).update(EPOCH_ISO);
    from = at + ISO_LENGTH;
  }
  return hash.update(json.subarray(from)).digest("base64url");
}

function isoBytes(ms: number): Buffer {
  return Buffer.from(new Date(ms).toISOString(), "latin1");
}

const EPOCH_ISO = isoBytes(0);
