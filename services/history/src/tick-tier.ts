import { ensureIndexes } from "@odds/platform";
import { MongoBulkWriteError, type Collection, type Db, type Filter, type FindCursor } from "mongodb";
import type { TickDocument } from "./ticks";

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
 * How a tier lays its ticks out. `per-event`: one collection per event (`ticks_<eventID>`), for
 * FerretDB/SQLite, which pushes down only `_id` equality and scans a whole collection for any other
 * filter. `shared`: one `ticks` collection with (eventID, changedAt, _id) and (eventID, day) indexes,
 * for MongoDB proper, where tens of thousands of collections cost more than an indexed equality.
 */
export type TickLayout = "per-event" | "shared";
export const TICK_LAYOUTS: readonly TickLayout[] = ["per-event", "shared"];

const EVENT_TICKS_PREFIX = "ticks_";
const SHARED_TICKS = "ticks";
const LIVE_DAYS = "tickDays";

/** A UTC day on which an event's ticks were written to this tier (what the archiver walks). */
export interface EventDay {
  day: string;
  eventID: string;
}

interface EventDayDocument {
  _id: string;
  day: string;
  eventID: string;
}

/**
 * One storage tier of the tick log (the live shard or the archive shard). Both tiers use the
 * same layout, so a tick is copied between them by id. With the `per-event` layout every read
 * and write touches only the event's own collection (measured on FerretDB: 6 s for an eventID
 * equality on 30,000 ticks in one collection, serialised across concurrent queries); with
 * `shared` every filter carries the eventID equality its indexes lead with.
 */
export class TickTier {
  private readonly days: Collection<EventDayDocument>;
  private readonly indexed = new Set<string>();

  constructor(
    readonly name: TierName,
    private readonly db: Db,
    private readonly layout: TickLayout = "per-event",
  ) {
    this.days = db.collection<EventDayDocument>(LIVE_DAYS);
  }

  private collectionName(eventID: string): string {
    return this.layout === "shared" ? SHARED_TICKS : `${EVENT_TICKS_PREFIX}${eventID}`;
  }

  private eventTicks(eventID: string): Collection<TickDocument> {
    return this.db.collection<TickDocument>(this.collectionName(eventID));
  }

  /** A filter restricted to one event's ticks (implicit in the per-event layout). */
  private eventScope(eventID: string, filter: Filter<TickDocument> = {}): Filter<TickDocument> {
    return this.layout === "shared" ? { eventID, ...filter } : filter;
  }

  /** The history order index (and, shared, the archiver's day index), created once per process per collection. */
  private async ensureEventIndex(eventID: string): Promise<void> {
    const name = this.collectionName(eventID);
    if (this.indexed.has(name)) return;
    await ensureIndexes(this.db, {
      [name]:
        this.layout === "shared"
          ? [
              { key: { eventID: 1, changedAt: 1, _id: 1 }, name: "history_order" },
              { key: { eventID: 1, day: 1 }, name: "event_days" },
            ]
          : [{ key: { changedAt: 1, _id: 1 }, name: "history_order" }],
    });
    this.indexed.add(name);
  }

  /**
   * Writes ticks by id; a tick already present is left as it is, so replays and re-copies
   * add nothing. Same effect as upserting each id, but one batched insert per event with
   * the duplicate-id refusals ignored: FerretDB applies upserts one by one (30x slower).
   */
  async upsertTicks(ticks: TickDocument[]): Promise<void> {
    const byEvent = new Map<string, TickDocument[]>();
    for (const tick of ticks) {
      const list = byEvent.get(tick.eventID);
      if (list) list.push(tick);
      else byEvent.set(tick.eventID, [tick]);
    }
    for (const [eventID, eventTicks] of byEvent) {
      await this.ensureEventIndex(eventID);
      try {
        await this.eventTicks(eventID).insertMany(eventTicks, { ordered: false });
      } catch (err) {
        if (!isOnlyDuplicateIds(err)) throw err;
      }
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

  /** Forgets an (event, day) once it holds no tick; a tick written meanwhile notes it again. */
  async forgetDayIfEmpty({ day, eventID }: EventDay): Promise<boolean> {
    await this.days.deleteOne({ _id: `${day}|${eventID}` });
    const remaining = await this.eventTicks(eventID).findOne(this.eventScope(eventID, { day }), {
      projection: { _id: 1 },
    });
    if (remaining) await this.noteDays([{ day, eventID }]);
    return remaining === null;
  }

  /** Every tick of an event in this tier (the fields that define what a book holds). */
  ticksOfEvent(eventID: string): Promise<TickDocument[]> {
    return this.eventTicks(eventID)
      .find(this.eventScope(eventID), {
        projection: {
          eventID: 1,
          oddID: 1,
          bookmakerID: 1,
          sourceID: 1,
          changedAt: 1,
          kind: 1,
          decimalOdds: 1,
          line: 1,
          isMainLine: 1,
          layOdds: 1,
          maxStake: 1,
        },
      })
      .toArray();
  }

  ticksOfDay({ day, eventID }: EventDay, limit: number): Promise<TickDocument[]> {
    return this.eventTicks(eventID).find(this.eventScope(eventID, { day })).limit(limit).toArray();
  }

  async deleteTicks(eventID: string, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.eventTicks(eventID).deleteMany(this.eventScope(eventID, { _id: { $in: ids } }));
  }

  countTicks(eventID: string, filter: { day?: string } = {}): Promise<number> {
    return this.eventTicks(eventID).countDocuments(this.eventScope(eventID, filter));
  }

  /** Every (bookmaker, source, rank) with at least one tick in the window. */
  async seriesSources(window: TickWindow): Promise<SeriesSource[]> {
    const groups = await this.eventTicks(window.eventID)
      .aggregate<{ _id: SeriesSource }>([
        {
          $match: this.eventScope(
            window.eventID,
            this.windowFilter({ ...window, after: undefined, seriesKeys: undefined }),
          ),
        },
        { $group: { _id: { bookmakerID: "$bookmakerID", sourceID: "$sourceID", sourceRank: "$sourceRank" } } },
      ])
      .toArray();
    return groups.map((group) => group._id);
  }

  /** Ticks of the window after the position, in history order, at most `cap` of them. */
  openWindow(window: TickWindow, cap: number, batchSize: number): FindCursor<TickDocument> {
    return this.eventTicks(window.eventID)
      .find(this.eventScope(window.eventID, this.windowFilter(window)))
      .sort({ changedAt: 1, _id: 1 })
      .limit(cap)
      .batchSize(Math.min(cap, batchSize));
  }

  private windowFilter(window: TickWindow): Filter<TickDocument> {
    const filter: Filter<TickDocument> = {
      changedAt: { $gte: new Date(window.fromMs), $lt: new Date(window.toMs) },
    };
    if (window.seriesKeys) filter.seriesKey = { $in: window.seriesKeys };
    if (window.bookmakerIDs) filter.bookmakerID = { $in: window.bookmakerIDs };
    if (window.after) {
      const at = new Date(window.after.at);
      filter.$or = [{ changedAt: { $gt: at } }, { changedAt: at, _id: { $gt: window.after.id } }];
    }
    return filter;
  }
}

const DUPLICATE_KEY = 11000;

/** True when a batched write failed only because some ids already existed. */
export function isOnlyDuplicateIds(err: unknown): err is MongoBulkWriteError {
  if (!(err instanceof MongoBulkWriteError)) return false;
  const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return writeErrors.length > 0 && writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY);
}
