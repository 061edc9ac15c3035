import { ensureIndexes } from "@odds/platform";
import { MongoBulkWriteError, type Collection, type Db, type FindCursor } from "mongodb";
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

const TICKS = "ticks";
const LIVE_DAYS = "tickDays";

/**
 * One storage tier of the tick log (the live shard or the archive shard): the same
 * collection shape and indexes in both, so a tick can be copied between them by id.
 * The selective part of every query is an equality (eventID, day) so FerretDB can push
 * it down; MongoDB proper uses the compound indexes.
 */
export class TickTier {
  private readonly ticks: Collection<TickDocument>;
  private readonly days: Collection<{ _id: string }>;

  constructor(
    readonly name: TierName,
    db: Db,
  ) {
    this.ticks = db.collection<TickDocument>(TICKS);
    this.days = db.collection<{ _id: string }>(LIVE_DAYS);
  }

  ensureIndexes(): Promise<void> {
    return ensureIndexes(this.ticks.db, {
      [TICKS]: [
        { key: { eventID: 1, changedAt: 1, _id: 1 }, name: "event_order" },
        { key: { day: 1 }, name: "day" },
      ],
    });
  }

  /**
   * Writes ticks by id; a tick already present is left as it is, so replays and re-copies
   * add nothing. Same effect as upserting each id, but one batched insert with the
   * duplicate-id refusals ignored: FerretDB applies upserts one by one (30x slower).
   */
  async upsertTicks(ticks: TickDocument[]): Promise<void> {
    if (ticks.length === 0) return;
    try {
      await this.ticks.insertMany(ticks, { ordered: false });
    } catch (err) {
      if (!isOnlyDuplicateIds(err)) throw err;
    }
  }

  /** Notes the UTC days written, so the archiver finds old days by equality instead of scanning by date. */
  async noteDays(days: Iterable<string>): Promise<void> {
    const operations = [...new Set(days)].map((day) => ({
      updateOne: { filter: { _id: day }, update: { $set: { _id: day } }, upsert: true },
    }));
    if (operations.length > 0) await this.days.bulkWrite(operations, { ordered: false });
  }

  async listDays(): Promise<string[]> {
    const docs = await this.days.find({}).toArray();
    return docs.map((doc) => doc._id).sort();
  }

  /** Forgets a day once it holds no tick; a tick written meanwhile notes the day again. */
  async forgetDayIfEmpty(day: string): Promise<boolean> {
    await this.days.deleteOne({ _id: day });
    const remaining = await this.ticks.findOne({ day }, { projection: { _id: 1 } });
    if (remaining) await this.noteDays([day]);
    return remaining === null;
  }

  /** Every tick of an event in this tier (the fields that define what a book holds). */
  ticksOfEvent(eventID: string): Promise<TickDocument[]> {
    return this.ticks
      .find(
        { eventID },
        {
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
        },
      )
      .toArray();
  }

  ticksOfDay(day: string, limit: number): Promise<TickDocument[]> {
    return this.ticks.find({ day }).limit(limit).toArray();
  }

  async deleteTicks(day: string, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.ticks.deleteMany({ day, _id: { $in: ids } });
  }

  countTicks(filter: { eventID?: string; day?: string } = {}): Promise<number> {
    return this.ticks.countDocuments(filter);
  }

  /** Every (bookmaker, source, rank) with at least one tick in the window. */
  async seriesSources(window: TickWindow): Promise<SeriesSource[]> {
    const groups = await this.ticks
      .aggregate<{ _id: SeriesSource }>([
        { $match: this.windowFilter({ ...window, after: undefined, seriesKeys: undefined }) },
        { $group: { _id: { bookmakerID: "$bookmakerID", sourceID: "$sourceID", sourceRank: "$sourceRank" } } },
      ])
      .toArray();
    return groups.map((group) => group._id);
  }

  /** Ticks of the window after the position, in history order, at most `cap` of them. */
  openWindow(window: TickWindow, cap: number, batchSize: number): FindCursor<TickDocument> {
    return this.ticks
      .find(this.windowFilter(window))
      .sort({ changedAt: 1, _id: 1 })
      .limit(cap)
      .batchSize(Math.min(cap, batchSize));
  }

  private windowFilter(window: TickWindow): Record<string, unknown> {
    const filter: Record<string, unknown> = {
      eventID: window.eventID,
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
