import { ensureIndexes } from "@odds/platform";
import {
  MongoBulkWriteError,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Filter,
} from "mongodb";
import {
  appendToBucket,
  bucketId,
  decodeBucket,
  encodeBucket,
  HOUR_MS,
  hourOf,
  mergeTicks,
  sourceOf,
  ticksByHour,
  type BucketDocument,
} from "./tick-buckets";
import { seriesKeyOf, type TickDocument } from "./ticks";

export type TierName = "live" | "archive";

/** A position in the history order: changedAt ascending, then tick id. */
export interface TickPosition {
  at: number;
  id: string;
}

export interface TickWindow {
  eventID: string;
  fromMs: number;
  toMs: number;
  /** Restricts to these series (bookmakerID|sourceID); undefined = all. */
  seriesKeys?: string[];
  /** Restricts to these bookmakers; undefined = all. */
  bookmakerIDs?: string[];
  after?: TickPosition;
}

/** One source a bookmaker reached the log through in a window, and its rank. */
export interface SeriesSource {
  bookmakerID: string;
  sourceID: string;
  sourceRank: number;
}

/**
 * Where a tier keeps its buckets (tick-buckets.ts). `per-event`: one collection per event
 * (`buckets_<eventID>`), for FerretDB/SQLite: FerretDB 1.24 reads by its `_id` index only (locally
 * also for an `_id` among other conditions: deploy/local/build-ferretdb.sh); any other query, such as
 * a window's hours or an archiver's day, reads every row of its collection, and a collection per
 * event bounds that to one event's buckets. `shared`: one `tickBuckets` collection with (eventID,
 * hour) and (eventID, day) indexes, for MongoDB proper, where tens of thousands of collections cost
 * more than an indexed equality.
 */
export type TickLayout = "per-event" | "shared";
export const TICK_LAYOUTS: readonly TickLayout[] = ["per-event", "shared"];

const EVENT_BUCKETS_PREFIX = "buckets_";
const SHARED_BUCKETS = "tickBuckets";
const LIVE_DAYS = "tickDays";
const REVISIONS = "tickRevisions";
const DUPLICATE_KEY = 11000;
/** Rewrites of an event's buckets retried when another writer got there first. */
const WRITE_ATTEMPTS = 5;
/**
 * A window of at most this many hours reads each hour's bucket by `_id` (`windowBuckets`); a longer one lists its
 * hours in one query. Each look-up costs about what FerretDB spends decoding two or three buckets in a listing.
 */
export const WINDOW_HOURS_BY_ID = 6;

/** A UTC day on which an event's ticks were written to this tier (what the archiver walks). */
export interface EventDay {
  day: string;
  eventID: string;
}

/** An event's revision in a tier (`revisionOf`). */
interface RevisionDocument {
  _id: string;
  rev: number;
}

interface EventDayDocument {
  _id: string;
  day: string;
  eventID: string;
}

/** What identifies a bucket version: an archive delete applies only to the version copied. */
export type BucketVersion = Pick<BucketDocument, "_id" | "v" | "n">;

type BucketSummary = Omit<BucketDocument, "ticks">;

/** A window's buckets in one tier: what they hold, their series and, for the series ranked from them, the ticks. */
export interface WindowPlan {
  /** The event's revision in the tier, read before its buckets (`revisionOf`). */
  revision: number;
  /**
   * The versions of the buckets the window reads (id, version, ticks held, newest tick): a bucket's ticks
   * only grow, and each rewrite bumps its version, so while this is the same the tier's ticks of the window are.
   */
  contents: string;
  /**
   * The newest tick's time in those buckets (a bucket written before buckets noted it: the end of its hour); -Infinity
   * when there are none. What a window read up to now learns of ticks dated at or past it (reader.ts, `readsToNow`).
   */
  newestAtMs: number;
  /** The (bookmaker, source, rank) series with a tick in the window (the buckets its ends cut through are inflated). */
  sources(): SeriesSource[];
  /** Ticks of the window after its position, in history order, at most `cap` of them. */
  open(window: TickWindow, cap: number): TickCursor;
}

/** A tier's ticks of a window in history order, inflated bucket by bucket from the buckets already read. */
export interface TickCursor {
  /** The next tick, or null after the last one (or the cap). */
  next(): TickDocument | null;
}

/** The collection holding an event's buckets in a layout (in `shared`, with every other event's). */
export function bucketCollectionOf(layout: TickLayout, eventID: string): string {
  return layout === "shared" ? SHARED_BUCKETS : `${EVENT_BUCKETS_PREFIX}${eventID}`;
}

/**
 * One storage tier of the tick log (the live shard or the archive shard), holding ticks in hour
 * buckets. Both tiers use the same layout, so a bucket's ticks are copied between them by tick id.
 */
export class TickTier {
  private readonly days: Collection<EventDayDocument>;
  private readonly revisions: Collection<RevisionDocument>;
  private readonly indexed = new Set<string>();

  constructor(
    readonly name: TierName,
    private readonly db: Db,
    private readonly layout: TickLayout = "per-event",
  ) {
    this.days = db.collection<EventDayDocument>(LIVE_DAYS);
    this.revisions = db.collection<RevisionDocument>(REVISIONS);
  }

  private get shared(): boolean {
    return this.layout === "shared";
  }

  private collectionName(eventID: string): string {
    return bucketCollectionOf(this.layout, eventID);
  }

  private buckets(eventID: string): Collection<BucketDocument> {
    return this.db.collection<BucketDocument>(this.collectionName(eventID));
  }

  /** A filter restricted to one event's buckets (implicit in the per-event layout). */
  private eventScope(eventID: string, filter: Filter<BucketDocument> = {}): Filter<BucketDocument> {
    return this.shared ? { eventID, ...filter } : filter;
  }

  /** The shared collection's indexes, created once per process. */
  private async ensureIndex(eventID: string): Promise<void> {
    const name = this.collectionName(eventID);
    if (!this.shared || this.indexed.has(name)) return;
    await ensureIndexes(this.db, {
      [name]: [
        { key: { eventID: 1, hour: 1 }, name: "event_hours" },
        { key: { eventID: 1, day: 1 }, name: "event_days" },
      ],
    });
    this.indexed.add(name);
  }

  /**
   * Writes ticks by id; a tick already held is left as it is, so replays and re-copies add nothing.
   * Each touched bucket is read, merged and rewritten by `_id` at the version read (a new bucket is
   * inserted); when another writer changed or created one meanwhile, the event's write is redone.
   */
  async upsertTicks(ticks: TickDocument[]): Promise<void> {
    const byEvent = new Map<string, TickDocument[]>();
    for (const tick of ticks) {
      const list = byEvent.get(tick.eventID);
      if (list) list.push(tick);
      else byEvent.set(tick.eventID, [tick]);
    }
    for (const [eventID, eventTicks] of byEvent)
      await this.revised(eventID, () => this.writeEventTicks(eventID, ticksByHour(eventTicks)));
  }

  /**
   * An event's revision in this tier: a count that moves after every write to its buckets, read with one look-up by
   * `_id`. A reader that read it before listing a window's buckets, and reads the same number later, knows the
   * buckets are as it listed them, unless a writer died between its write and the count (or ran a release before
   * revisions): the reader bounds that by listing again after a while (reader.ts, `REVISION_TRUST_MS`).
   */
  async revisionOf(eventID: string): Promise<number> {
    return (await this.revisions.findOne({ _id: eventID }))?.rev ?? 0;
  }

  /**
   * Runs a write to an event's buckets, then moves its revision, whether the write succeeded or not (a failed write
   * may have landed in part). A call sent again after a failure moves it again, even where it then writes nothing.
   */
  private async revised<T>(eventID: string, write: () => Promise<T>): Promise<T> {
    let written: T;
    try {
      written = await write();
    } catch (err) {
      await this.moveRevision(eventID).catch(() => undefined);
      throw err;
    }
    await this.moveRevision(eventID);
    return written;
  }

  private async moveRevision(eventID: string): Promise<void> {
    const move = () => this.revisions.updateOne({ _id: eventID }, { $inc: { rev: 1 } }, { upsert: true });
    try {
      await move();
    } catch (err) {
      // Two first writes of an event raced to insert its revision: the other one did, and this one now moves it.
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
      await move();
    }
  }

  private async writeEventTicks(eventID: string, byHour: Map<number, TickDocument[]>): Promise<void> {
    await this.ensureIndex(eventID);
    const collection = this.buckets(eventID);
    const idOf = (hour: number) => bucketId(eventID, hour, this.shared);
    for (let attempt = 1; ; attempt++) {
      // One look-up by _id per bucket (a cycle touches an hour or two of an event): an equality on _id
      // is an index read on MongoDB and on the local FerretDB alike, where an `$in` scans the collection.
      const found = await Promise.all([...byHour.keys()].map((hour) => collection.findOne({ _id: idOf(hour) })));
      const held = new Map(found.filter((b) => b !== null).map((b) => [b._id, b]));
      const writes: AnyBulkWriteOperation<BucketDocument>[] = [];
      let rewrites = 0;
      for (const [hour, incoming] of byHour) {
        const id = idOf(hour);
        const bucket = held.get(id);
        let document = bucket && appendToBucket(bucket, incoming);
        if (!document) {
          const merged = mergeTicks(bucket ? decodeBucket(bucket) : [], incoming);
          if (!merged) continue;
          document = encodeBucket(id, eventID, hour, merged, (bucket?.v ?? 0) + 1);
        }
        if (bucket) {
          rewrites += 1;
          writes.push({ replaceOne: { filter: { _id: id, v: bucket.v }, replacement: document } });
        } else {
          writes.push({ insertOne: { document } });
        }
      }
      if (writes.length === 0) return;
      try {
        const result = await collection.bulkWrite(writes, { ordered: false });
        if (result.matchedCount === rewrites) return;
      } catch (err) {
        if (!isOnlyDuplicateIds(err)) throw err;
      }
      if (attempt === WRITE_ATTEMPTS)
        throw new Error(`${this.name} tier: buckets of ${eventID} kept changing during ${attempt} rewrites`);
    }
  }

  /** Notes the (day, event) pairs written, so the archiver finds old ticks without scanning every event. */
  async noteDays(ticks: Iterable<EventDay>): Promise<void> {
    const seen = new Map<string, EventDayDocument>();
    for (const { day, eventID } of ticks) seen.set(`${day}|${eventID}`, { _id: `${day}|${eventID}`, day, eventID });
    if (seen.size === 0) return;
    try {
      await this.days.insertMany([...seen.values()], { ordered: false });
    } catch (err) {
      if (!isOnlyDuplicateIds(err)) throw err;
    }
  }

  async listDays(): Promise<EventDay[]> {
    const docs = await this.days.find({}).toArray();
    return docs.map(({ day, eventID }) => ({ day, eventID })).sort((a, b) => a.day.localeCompare(b.day));
  }

  /** Forgets an (event, day) once it holds no bucket; a tick written meanwhile notes it again. */
  async forgetDayIfEmpty({ day, eventID }: EventDay): Promise<boolean> {
    await this.days.deleteOne({ _id: `${day}|${eventID}` });
    const remaining = await this.buckets(eventID).findOne(this.eventScope(eventID, { day }), {
      projection: { ticks: 0 },
    });
    if (remaining) await this.noteDays([{ day, eventID }]);
    return remaining === null;
  }

  /** Every bucket of an event in this tier, oldest hour first, its ticks still packed (`decodeBucket`). */
  async bucketsOfEvent(eventID: string): Promise<BucketDocument[]> {
    const buckets = await this.buckets(eventID).find(this.eventScope(eventID)).toArray();
    return buckets.sort((a, b) => a.hour - b.hour);
  }

  /** The buckets of an event's day, whole, oldest first, until they hold at least `minTicks` ticks. */
  async bucketsOfDay({ day, eventID }: EventDay, minTicks: number): Promise<BucketDocument[]> {
    const summaries = await this.summaries(eventID, { day });
    const chosen: string[] = [];
    let ticks = 0;
    for (const summary of summaries) {
      if (ticks >= minTicks) break;
      chosen.push(summary._id);
      ticks += summary.n;
    }
    if (chosen.length === 0) return [];
    const buckets = await this.buckets(eventID)
      .find({ _id: { $in: chosen } })
      .toArray();
    return buckets.sort((a, b) => a.hour - b.hour);
  }

  /** Deletes these buckets where they are still at the version given; returns the ticks deleted. */
  async deleteBuckets(eventID: string, versions: readonly BucketVersion[]): Promise<number> {
    if (versions.length === 0) return 0;
    return this.revised(eventID, async () => {
      let deleted = 0;
      for (const { _id, v, n } of versions) {
        const result = await this.buckets(eventID).deleteOne({ _id, v });
        if (result.deletedCount === 1) deleted += n;
      }
      return deleted;
    });
  }

  async countTicks(eventID: string, filter: { day?: string } = {}): Promise<number> {
    return (await this.summaries(eventID, filter)).reduce((sum, bucket) => sum + bucket.n, 0);
  }

  /** The event's buckets (without their ticks) matching the filter, oldest first. */
  private async summaries(eventID: string, filter: Filter<BucketDocument>): Promise<BucketSummary[]> {
    const found = await this.buckets(eventID)
      .find(this.eventScope(eventID, filter), { projection: { ticks: 0 } })
      .toArray();
    return (found as BucketSummary[]).sort((a, b) => a.hour - b.hour);
  }

  /**
   * The window's buckets, read once (`windowBuckets`; on FerretDB a listing without the ticks costs as much,
   * since it decodes every bucket whole before projecting), for the steps of a page read: the event's revision,
   * read before them, and their versions (what a page's tag names), the (bookmaker, source, rank) series with at
   * least one tick in the window (a bucket inside the window answers from its summary; the ticks of the buckets the
   * window's ends cut through are inflated), then a cursor over the ticks of the ranked series after the page's
   * position, inflating one bucket at a time. A bucket inflated for the series is not inflated again for the cursor:
   * a window ending now cuts through the current hour's bucket, and a poller's window of an hour or two through
   * most of what it reads (docs/performance.md "History pages merged without a promise per tick").
   */
  async planWindow(window: TickWindow): Promise<WindowPlan> {
    // The revision first: a write that lands after it moves it after landing, whether or not the listing saw it.
    const revision = await this.revisionOf(window.eventID);
    const buckets = await this.windowBuckets(window);
    const inflated = new Map<BucketDocument, TickDocument[]>();
    return {
      revision,
      contents: buckets
        .map(({ _id, v, n, lastAt, lastId }) => `${_id} ${v} ${n} ${lastAt ?? ""} ${lastId ?? ""}`)
        .join("\n"),
      newestAtMs: buckets.reduce((newest, { hour, lastAt }) => Math.max(newest, lastAt ?? hour + HOUR_MS), -Infinity),
      sources: () => windowSources(window, buckets, inflated),
      open: (ranked, cap) => {
        const fromHour = hourOf(Math.max(ranked.fromMs, ranked.after?.at ?? ranked.fromMs));
        const queue = buckets.filter((bucket) => bucket.hour >= fromHour && holdsWanted(ranked, bucket));
        return new BucketCursor(ranked, cap, queue, inflated);
      },
    };
  }

  /**
   * The buckets of a window's hours, oldest first. A window of a few hours (a poller asking for what changed
   * since its last read; a window ends at the present at the latest) reads each hour by `_id`, the one query
   * FerretDB answers from an index; a longer window lists its hours in one query. On FerretDB any other query
   * reads and decodes every bucket of the event whole, ticks included, whatever the window: for an upcoming
   * event with 23 hour buckets, the last two hours cost 42-98 ms listed and 5-18 ms by `_id` (docs/performance.md
   * "History: short windows by `_id`").
   */
  private async windowBuckets(window: TickWindow): Promise<BucketDocument[]> {
    const collection = this.buckets(window.eventID);
    const firstHour = hourOf(window.fromMs);
    const hours = window.toMs > firstHour ? Math.ceil((window.toMs - firstHour) / HOUR_MS) : 0;
    if (hours <= WINDOW_HOURS_BY_ID) {
      const found = await Promise.all(
        Array.from({ length: hours }, (_, i) =>
          collection.findOne({ _id: bucketId(window.eventID, firstHour + i * HOUR_MS, this.shared) }),
        ),
      );
      return found.filter((bucket) => bucket !== null);
    }
    const listed = await collection
      .find(this.eventScope(window.eventID, { hour: { $gte: firstHour, $lt: window.toMs } }))
      .toArray();
    return listed.sort((a, b) => a.hour - b.hour);
  }
}

/**
 * The series with a tick in the window: a bucket inside it answers from its summary, one its ends cut through is
 * inflated (and kept in `inflated` for the page's cursor).
 */
function windowSources(
  window: TickWindow,
  buckets: readonly BucketDocument[],
  inflated: Map<BucketDocument, TickDocument[]>,
): SeriesSource[] {
  const whole: TickWindow = { ...window, after: undefined, seriesKeys: undefined };
  const found = new Set<string>();
  for (const bucket of buckets) {
    if (bucket.hour >= window.fromMs && bucket.hour + HOUR_MS <= window.toMs) {
      for (const source of bucket.sources) found.add(source);
    } else {
      const ticks = decodeBucket(bucket);
      inflated.set(bucket, ticks);
      for (const tick of ticks) if (inWindow(whole, tick)) found.add(sourceOf(tick));
    }
  }
  const bookmakers = window.bookmakerIDs ? new Set(window.bookmakerIDs) : undefined;
  return [...found].map(parseSource).filter((source) => !bookmakers || bookmakers.has(source.bookmakerID));
}

/** Yields the ticks a window keeps from its buckets (in hour order), inflating one bucket at a time. */
class BucketCursor implements TickCursor {
  private buffer: TickDocument[] = [];
  private next_ = 0;
  private yielded = 0;

  constructor(
    private readonly window: TickWindow,
    private readonly cap: number,
    private readonly queue: BucketDocument[],
    /** Buckets already inflated for the window's series: each is taken from here once, then let go. */
    private readonly inflated: Map<BucketDocument, TickDocument[]>,
  ) {}

  next(): TickDocument | null {
    if (this.yielded >= this.cap) return null;
    while (this.next_ === this.buffer.length) {
      const bucket = this.queue.shift();
      if (!bucket) return null;
      const ticks = this.inflated.get(bucket) ?? decodeBucket(bucket);
      this.inflated.delete(bucket);
      this.buffer = ticks.filter((tick) => inWindow(this.window, tick));
      this.next_ = 0;
    }
    this.yielded += 1;
    return this.buffer[this.next_++]!;
  }
}

/** Whether a bucket holds a series the window reads (by its summary). */
function holdsWanted(window: TickWindow, summary: Pick<BucketDocument, "sources">): boolean {
  if (!window.seriesKeys && !window.bookmakerIDs) return true;
  return summary.sources.some((source) => {
    const { bookmakerID, sourceID } = parseSource(source);
    return (
      (!window.seriesKeys || window.seriesKeys.includes(seriesKeyOf(bookmakerID, sourceID))) &&
      (!window.bookmakerIDs || window.bookmakerIDs.includes(bookmakerID))
    );
  });
}

/** Whether the window keeps a tick: inside [from, to), of its series and bookmakers, after its position. */
function inWindow(window: TickWindow, tick: TickDocument): boolean {
  const at = tick.changedAt.getTime();
  if (at < window.fromMs || at >= window.toMs) return false;
  if (window.seriesKeys && !window.seriesKeys.includes(tick.seriesKey)) return false;
  if (window.bookmakerIDs && !window.bookmakerIDs.includes(tick.bookmakerID)) return false;
  const after = window.after;
  return !after || at > after.at || (at === after.at && tick._id > after.id);
}

function parseSource(source: string): SeriesSource {
  const parts = source.split("|");
  const sourceRank = Number(parts.pop());
  const bookmakerID = parts.shift()!;
  return { bookmakerID, sourceID: parts.join("|"), sourceRank };
}

/** True when a batched write failed only because some ids already existed. */
export function isOnlyDuplicateIds(err: unknown): err is MongoBulkWriteError {
  if (!(err instanceof MongoBulkWriteError)) return false;
  const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return writeErrors.length > 0 && writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY);
}
