import { Binary } from "mongodb";
import { packJsonSync, unpackJson } from "@odds/platform";
import { seriesKeyOf, utcDay, type TickDocument } from "./ticks";

export const HOUR_MS = 3_600_000;

/**
 * One event's ticks of one UTC hour in one tier: the unit every read, write and archive move works on.
 * The ticks are kept sorted in history order (changedAt, then tick id) and stored deflated as one
 * binary value, so FerretDB decodes one value per bucket instead of some twenty per tick, and the
 * bytes every FerretDB/SQLite query pays for are about 37 per tick. The summary fields beside them
 * (hour, day, n, sources) let readers and the archiver choose buckets without inflating any.
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
  /** Deflated JSON array of StoredTick, in history order. */
  ticks: Binary;
}

/** A tick as held in a bucket: what the bucket's own fields already say is left out. */
type StoredTick = Omit<TickDocument, "eventID" | "day" | "changedAt" | "seriesKey"> & { changedAt: number };

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
  const stored: StoredTick[] = sorted.map(({ eventID: _e, day: _d, seriesKey: _s, changedAt, ...rest }) => ({
    ...rest,
    changedAt: changedAt.getTime(),
  }));
  return {
    _id: id,
    eventID,
    hour,
    day: utcDay(hour),
    n: sorted.length,
    v,
    sources: [...new Set(sorted.map(sourceOf))].sort(),
    ticks: new Binary(packJsonSync(JSON.stringify(stored))),
  };
}

/** The bucket's ticks, in history order. */
export function decodeBucket(bucket: Pick<BucketDocument, "eventID" | "ticks">): TickDocument[] {
  const stored = JSON.parse(unpackJson(bucket.ticks.buffer).toString("utf8")) as StoredTick[];
  return stored.map((tick) => ({
    ...tick,
    eventID: bucket.eventID,
    seriesKey: seriesKeyOf(tick.bookmakerID, tick.sourceID),
    changedAt: new Date(tick.changedAt),
    day: utcDay(tick.changedAt),
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
