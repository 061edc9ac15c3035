import { Binary } from "mongodb";
import { appendToJsonArray, packJsonArray, unpackJson, type PackedJsonArray } from "@odds/platform";
import { seriesKeyOf, utcDay, type TickDocument, type TickKind } from "./ticks";

export const HOUR_MS = 3_600_000;

/**
 * One event's ticks of one UTC hour in one tier: the unit every read, write and archive move works on.
 * The ticks are kept sorted in history order (changedAt, then tick id) and stored deflated as one
 * binary value, so FerretDB decodes one value per bucket instead of some twenty per tick, and the
 * bytes every FerretDB/SQLite query pays for are about 33 per tick (38 before ticks were rows). The
 * summary fields beside them (hour, day, n, sources) let readers and the archiver choose buckets
 * without inflating any.
 */
export interface BucketDocument {
  _id: string;
  eventID: string;
  /** Start of the UTC hour (ms). */
  hour: number;
  /** UTC day of the hour (YYYY-MM-DD): what the archiver moves by. */
  day: string;
  /** Ticks held. */
  n: number;
  /** Bumped by every rewrite: a rewrite or an archive delete applies only to the version it read. */
  v: number;
  /** `bookmakerID|sourceID|sourceRank` of every series with a tick in the bucket, sorted. */
  sources: string[];
  /**
   * The newest tick in history order (changedAt ms, tick id): a write of ticks all newer than it
   * appends them without decoding the held ones. Absent in buckets written before it existed.
   */
  lastAt?: number;
  lastId?: string;
  /** Deflated JSON array of the ticks, in history order: each a StoredRow, or a StoredTick in older buckets. */
  ticks: Binary;
  /**
   * Where the closing piece of `ticks` starts: a cycle's ticks are packed in before it (`appendToJsonArray`), the
   * held ones not again. Absent in buckets packed whole before it existed; their first append packs them again, as it
   * does where `closeAt` no longer points at the closing piece (kept by an earlier release that packed `ticks` whole).
   */
  closeAt?: number;
  /** The length of the ticks' JSON, so they inflate into one buffer. Absent, as `closeAt` is, in older buckets. */
  jsonBytes?: number;
}

/** A tick without what the bucket's own fields already say (its event and day) or what follows from the rest. */
export type StoredTick = Omit<TickDocument, "eventID" | "day" | "changedAt" | "seriesKey"> & { changedAt: number };

/**
 * A tick as a bucket writes it: a StoredTick's values in this order, the trailing nulls left out. Buckets written
 * before rows held each tick as a StoredTick object, and appends put rows after those, so a bucket's array may hold
 * both; each is read by its form. Rows are 42 % of the objects' JSON and parse in half the time (docs/performance.md
 * "History ticks stored as rows").
 */
export type StoredRow = [
  _id: string,
  oddID: string,
  bookmakerID: string,
  sourceID: string,
  sourceRank: number,
  changedAt: number,
  kind: TickKind,
  bookOdds?: string | null,
  decimalOdds?: number | null,
  previousBookOdds?: string | null,
  previousDecimalOdds?: number | null,
  line?: number | null,
  isMainLine?: boolean | null,
  layOdds?: number | null,
  maxStake?: number | null,
  previousMaxStake?: number | null,
];

/** The fields a row always holds, before the nullable ones. */
const ROW_HEAD = 7;

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** The bucket's id: unique per event and hour (the event is left out where the collection is the event's own). */
export function bucketId(eventID: string, hour: number, withEvent: boolean): string {
  const hourKey = new Date(hour).toISOString().slice(0, 13);
  return withEvent ? `${eventID}|${hourKey}` : hourKey;
}

/** History order: changedAt, then tick id. */
export function compareTicks(a: TickDocument, b: TickDocument): number {
  const byTime = a.changedAt.getTime() - b.changedAt.getTime();
  if (byTime !== 0) return byTime;
  return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
}

export function sourceOf(tick: Pick<TickDocument, "bookmakerID" | "sourceID" | "sourceRank">): string {
  return `${tick.bookmakerID}|${tick.sourceID}|${tick.sourceRank}`;
}

/** A bucket of these ticks (all of one event and hour), in history order, at version `v`. */
export function encodeBucket(
  id: string,
  eventID: string,
  hour: number,
  ticks: TickDocument[],
  v: number,
): BucketDocument {
  const sorted = [...ticks].sort(compareTicks);
  return {
    _id: id,
    eventID,
    hour,
    day: utcDay(hour),
    n: sorted.length,
    v,
    sources: [...new Set(sorted.map(sourceOf))].sort(),
    ...newestOf(sorted),
    ...packedTicks(packJsonArray(JSON.stringify(sorted.map(rowOf)))),
  };
}

function packedTicks({
  packed,
  closeAt,
  bytes,
}: PackedJsonArray): Pick<BucketDocument, "ticks" | "closeAt" | "jsonBytes"> {
  return { ticks: new Binary(packed), closeAt, jsonBytes: bytes };
}

/**
 * The bucket with these ticks appended, when every one of them (ids deduplicated) comes after the
 * bucket's newest tick in history order: the held ticks are neither parsed nor re-sorted, nor packed
 * again; only the added ticks are packed, into the bucket's stream (`appendToJsonArray`). Undefined
 * when they do not all come after it (or the bucket predates `lastAt`): the caller then merges
 * (mergeTicks), which also drops ticks already held.
 */
export function appendToBucket(bucket: BucketDocument, incoming: readonly TickDocument[]): BucketDocument | undefined {
  const { lastAt, lastId } = bucket;
  if (lastAt === undefined || lastId === undefined || incoming.length === 0) return undefined;
  const added = [...new Map(incoming.map((tick) => [tick._id, tick])).values()].sort(compareTicks);
  const first = added[0]!;
  const firstAt = first.changedAt.getTime();
  if (firstAt < lastAt || (firstAt === lastAt && first._id <= lastId)) return undefined;
  const held = { packed: bucket.ticks.buffer, closeAt: bucket.closeAt, bytes: bucket.jsonBytes };
  return {
    ...bucket,
    n: bucket.n + added.length,
    v: bucket.v + 1,
    sources: [...new Set([...bucket.sources, ...added.map(sourceOf)])].sort(),
    ...newestOf(added),
    ...packedTicks(appendToJsonArray(held, JSON.stringify(added.map(rowOf)))),
  };
}

function newestOf(sorted: readonly TickDocument[]): Pick<BucketDocument, "lastAt" | "lastId"> {
  const newest = sorted[sorted.length - 1];
  return newest ? { lastAt: newest.changedAt.getTime(), lastId: newest._id } : {};
}

/** The tick as a bucket writes it (`StoredRow`); the values left out at its end read back as null. */
function rowOf(tick: TickDocument): StoredRow {
  const row: StoredRow = [
    tick._id,
    tick.oddID,
    tick.bookmakerID,
    tick.sourceID,
    tick.sourceRank,
    tick.changedAt.getTime(),
    tick.kind,
    tick.bookOdds,
    tick.decimalOdds,
    tick.previousBookOdds,
    tick.previousDecimalOdds,
    tick.line,
    tick.isMainLine,
    tick.layOdds,
    tick.maxStake,
    tick.previousMaxStake,
  ];
  let length = row.length;
  while (length > ROW_HEAD && (row[length - 1] ?? null) === null) length--;
  row.length = length;
  return row;
}

/**
 * The bucket's ticks as StoredTicks, in history order, whether it holds them as rows or (older buckets) as objects:
 * for a pass that reads a few fields of every tick (the books' rebuild), without making each a `TickDocument`
 * (`decodeBucket`).
 */
export function storedTicksOf(bucket: Pick<BucketDocument, "ticks" | "jsonBytes">): StoredTick[] {
  const json = unpackJson(bucket.ticks.buffer, { bytes: bucket.jsonBytes });
  return (JSON.parse(json.toString("utf8")) as Array<StoredRow | StoredTick>).map((held) =>
    Array.isArray(held)
      ? {
          _id: held[0],
          oddID: held[1],
          bookmakerID: held[2],
          sourceID: held[3],
          sourceRank: held[4],
          changedAt: held[5],
          kind: held[6],
          bookOdds: held[7] ?? null,
          decimalOdds: held[8] ?? null,
          previousBookOdds: held[9] ?? null,
          previousDecimalOdds: held[10] ?? null,
          line: held[11] ?? null,
          isMainLine: held[12] ?? null,
          layOdds: held[13] ?? null,
          maxStake: held[14] ?? null,
          previousMaxStake: held[15] ?? null,
        }
      : held,
  );
}

/** The bucket's ticks, in history order. */
export function decodeBucket(bucket: Pick<BucketDocument, "eventID" | "hour" | "ticks" | "jsonBytes">): TickDocument[] {
  const stored = storedTicksOf(bucket);
  const { eventID } = bucket;
  // Every tick of a bucket falls in its UTC hour, so on the bucket's day.
  const day = utcDay(bucket.hour);
  // Built field by field, not by spreading the parsed tick: objects made that way cost about three times as much
  // to make and twice as much to render (a page of 5,000 ticks decoded and rendered: 49-53 ms spread, 20-21 ms
  // field by field, on this machine; docs/performance.md "History pages decoded field by field").
  return stored.map((tick) => ({
    _id: tick._id,
    eventID,
    oddID: tick.oddID,
    bookmakerID: tick.bookmakerID,
    sourceID: tick.sourceID,
    sourceRank: tick.sourceRank,
    seriesKey: seriesKeyOf(tick.bookmakerID, tick.sourceID),
    changedAt: new Date(tick.changedAt),
    day,
    kind: tick.kind,
    bookOdds: tick.bookOdds,
    decimalOdds: tick.decimalOdds,
    previousBookOdds: tick.previousBookOdds,
    previousDecimalOdds: tick.previousDecimalOdds,
    line: tick.line,
    isMainLine: tick.isMainLine,
    layOdds: tick.layOdds,
    maxStake: tick.maxStake,
    previousMaxStake: tick.previousMaxStake,
  }));
}

/**
 * The held ticks plus the incoming ones not already held (by tick id: a tick already held is kept
 * as it is), or undefined when every incoming tick is held already.
 */
export function mergeTicks(
  held: readonly TickDocument[],
  incoming: readonly TickDocument[],
): TickDocument[] | undefined {
  const ids = new Set(held.map((tick) => tick._id));
  const added: TickDocument[] = [];
  for (const tick of incoming) {
    if (ids.has(tick._id)) continue;
    ids.add(tick._id);
    added.push(tick);
  }
  return added.length === 0 ? undefined : [...held, ...added];
}

/** Ticks grouped by the hour bucket they belong to. */
export function ticksByHour(ticks: readonly TickDocument[]): Map<number, TickDocument[]> {
  const byHour = new Map<number, TickDocument[]>();
  for (const tick of ticks) {
    const hour = hourOf(tick.changedAt.getTime());
    const list = byHour.get(hour);
    if (list) list.push(tick);
    else byHour.set(hour, [tick]);
  }
  return byHour;
}
