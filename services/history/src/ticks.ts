import { createHash } from "node:crypto";
import type { objects } from "@odds/proto";
import { HeldQuotes } from "./held-quotes";
import { americanOdds, isOfferablePrice } from "./prices";

/** Capture began on this day; no tick exists before it. */
export const CAPTURE_START_MS = Date.UTC(2026, 7, 14);

export const DAY_MS = 86_400_000;

export type TickKind = objects.OddsHistoryTick["kind"];

/** The part of a bookmaker's quote on one market that a tick records. */
export interface HeldQuote {
  oddID: string;
  decimalOdds: number;
  line?: number;
  isMainLine?: boolean;
  layOdds?: number;
  maxStake?: number;
}

export interface ObservedQuote extends HeldQuote {
  /** false for a suspended market that is still listed. */
  available: boolean;
}

/** Everything one bookmaker offers on one event through one source at one instant. */
export interface BookSnapshot {
  eventID: string;
  bookmakerID: string;
  sourceID: string;
  sourceRank: number;
  observedAtMs: number;
  quotes: ObservedQuote[];
}

/** One recorded change, as stored in either tier. Field names follow the contract's OddsHistoryTick. */
export interface TickDocument {
  _id: string;
  eventID: string;
  oddID: string;
  bookmakerID: string;
  sourceID: string;
  sourceRank: number;
  /** bookmakerID and sourceID: the series a tick belongs to before source ranking. */
  seriesKey: string;
  changedAt: Date;
  /** UTC day of changedAt (YYYY-MM-DD): the equality key the archiver moves ticks by. */
  day: string;
  kind: TickKind;
  bookOdds: string | null;
  decimalOdds: number | null;
  previousBookOdds: string | null;
  previousDecimalOdds: number | null;
  line: number | null;
  isMainLine: boolean | null;
  layOdds: number | null;
  maxStake: number | null;
  previousMaxStake: number | null;
}

export function seriesKeyOf(bookmakerID: string, sourceID: string): string {
  return `${bookmakerID}|${sourceID}`;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Same inputs, same id: replaying a snapshot upserts the ticks it already recorded. */
export function tickId(
  snapshot: Pick<BookSnapshot, "eventID" | "bookmakerID" | "sourceID" | "observedAtMs">,
  oddID: string,
  kind: TickKind,
): string {
  return createHash("sha256")
    .update([snapshot.eventID, oddID, snapshot.bookmakerID, snapshot.sourceID, snapshot.observedAtMs, kind].join("\n"))
    .digest("base64url")
    .slice(0, 24);
}

/**
 * What changed between the held quote and the observed one. A quote that is not held
 * opens; a suspended or unpriceable quote closes what was held (it cannot be bet until it
 * reopens); price, lay price, line or main-line changes move; a change of the bet limit
 * alone is a limit change; anything else records nothing.
 */
export function tickKindFor(held: HeldQuote | undefined, observed: ObservedQuote | undefined): TickKind | undefined {
  const open = observed !== undefined && observed.available && isOfferablePrice(observed.decimalOdds);
  if (!held) return open ? "open" : undefined;
  if (!open) return "close";
  if (
    held.decimalOdds !== observed.decimalOdds ||
    held.layOdds !== observed.layOdds ||
    held.line !== observed.line ||
    held.isMainLine !== observed.isMainLine
  )
    return "move";
  if (held.maxStake !== observed.maxStake) return "limit";
  return undefined;
}

export function buildTick(
  snapshot: BookSnapshot,
  kind: TickKind,
  held: HeldQuote | undefined,
  observed: HeldQuote | undefined,
): TickDocument {
  const oddID = (observed ?? held)!.oddID;
  const current = kind === "close" ? undefined : observed;
  const lineSource = current ?? held;
  return {
    _id: tickId(snapshot, oddID, kind),
    eventID: snapshot.eventID,
    oddID,
    bookmakerID: snapshot.bookmakerID,
    sourceID: snapshot.sourceID,
    sourceRank: snapshot.sourceRank,
    seriesKey: seriesKeyOf(snapshot.bookmakerID, snapshot.sourceID),
    changedAt: new Date(snapshot.observedAtMs),
    day: utcDay(snapshot.observedAtMs),
    kind,
    bookOdds: current ? americanOdds(current.decimalOdds) : null,
    decimalOdds: current ? current.decimalOdds : null,
    previousBookOdds: held ? americanOdds(held.decimalOdds) : null,
    previousDecimalOdds: held ? held.decimalOdds : null,
    line: lineSource?.line ?? null,
    isMainLine: lineSource?.isMainLine ?? null,
    layOdds: current?.layOdds ?? null,
    maxStake: current?.maxStake ?? null,
    previousMaxStake: held?.maxStake ?? null,
  };
}

/**
 * Compares one book snapshot with the quotes held for its (event, bookmaker, source) and
 * returns the ticks it records and the quotes held afterwards. A held quote missing from
 * the snapshot was withdrawn and closes.
 */
export function diffSnapshot(held: HeldQuotes, snapshot: BookSnapshot): { ticks: TickDocument[]; held: HeldQuotes } {
  const positions = held.positions();
  const next: HeldQuote[] = [];
  const ticks: TickDocument[] = [];
  const seen = new Set<string>();
  for (const observed of snapshot.quotes) {
    if (seen.has(observed.oddID)) continue;
    seen.add(observed.oddID);
    const position = positions.get(observed.oddID);
    const previous = position === undefined ? undefined : held.at(position);
    const kind = tickKindFor(previous, observed);
    if (kind) ticks.push(buildTick(snapshot, kind, previous, observed));
    if (kind !== "close" && (previous || kind === "open")) next.push(observed);
  }
  for (const [oddID, position] of positions) {
    if (!seen.has(oddID)) ticks.push(buildTick(snapshot, "close", held.at(position), undefined));
  }
  return { ticks, held: HeldQuotes.of(next) };
}

/**
 * The contract's OddsHistoryTick of each tick as UTF-8 JSON: byte for byte what `JSON.stringify` makes of the
 * contract object (every nullable field present, in the contract's order; stores may drop nulls), written as one
 * template per tick. A page repeats a few strings (its event, some oddIDs and bookmakers, prices like "+150") and
 * the instants of a few cycles, so each string's JSON and each instant's ISO form are made once per page: 0.8 µs a
 * tick on this machine against 1.6 for a contract object built and stringified (docs/performance.md "History ticks
 * rendered by template").
 */
export function renderTicks(ticks: readonly TickDocument[]): Buffer[] {
  const quoted = new Map<string, string>();
  const text = (value: string | null | undefined): string => {
    if (value === null || value === undefined) return "null";
    let json = quoted.get(value);
    if (json === undefined) {
      json = JSON.stringify(value);
      quoted.set(value, json);
    }
    return json;
  };
  let instantMs = Number.NaN;
  let instant = "";
  return ticks.map((tick) => {
    const ms = tick.changedAt.getTime();
    if (ms !== instantMs) {
      instantMs = ms;
      instant = JSON.stringify(tick.changedAt.toISOString());
    }
    return Buffer.from(
      `{"eventID":${text(tick.eventID)},"oddID":${text(tick.oddID)},"bookmakerID":${text(tick.bookmakerID)},` +
        `"changedAt":${instant},"kind":${text(tick.kind)},"bookOdds":${text(tick.bookOdds)},` +
        `"decimalOdds":${jsonNumber(tick.decimalOdds)},"previousBookOdds":${text(tick.previousBookOdds)},` +
        `"previousDecimalOdds":${jsonNumber(tick.previousDecimalOdds)},"line":${jsonNumber(tick.line)},` +
        `"isMainLine":${jsonBoolean(tick.isMainLine)},"layOdds":${jsonNumber(tick.layOdds)},` +
        `"maxStake":${jsonNumber(tick.maxStake)},"previousMaxStake":${jsonNumber(tick.previousMaxStake)}}`,
      "utf8",
    );
  });
}

/** A number as JSON writes it: its shortest form, or null when absent or not finite. */
function jsonNumber(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "null" : String(value);
}

function jsonBoolean(value: boolean | null | undefined): string {
  return value === null || value === undefined ? "null" : value ? "true" : "false";
}
