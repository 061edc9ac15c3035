import { LRUCache } from "lru-cache";
import { v1 } from "@odds/proto";
import type { Collection, Db } from "mongodb";

/** What history knows of an event: enough for the default window, plan scope and 404. */
export interface EventRef {
  eventID: string;
  sportID: string;
  leagueID: string;
  startsAtMs: number;
}

interface EventRefDocument {
  _id: string;
  sportID: string;
  leagueID: string;
  startsAt: Date;
  /** The event's v1 id (ev_...), so a v1 request finds it. */
  v1Id?: string;
}

/** Refs held in memory: far more than the events a day's cycles carry; an evicted ref is read or rewritten once more. */
const CACHED_REFS = 100_000;

/** Event refs sent with RecordQuotes, kept in the live shard and cached in memory (they rarely change). */
export class EventRefStore {
  private readonly collection: Collection<EventRefDocument>;
  private readonly cache = new LRUCache<string, EventRef>({ max: CACHED_REFS });
  private readonly byV1Id = new LRUCache<string, string>({ max: CACHED_REFS });

  constructor(db: Db) {
    this.collection = db.collection<EventRefDocument>("events");
  }

  /** Indexes the v1 ids and gives one to every ref stored before they existed (once; later saves carry it). */
  async prepare(): Promise<void> {
    await this.collection.createIndex({ v1Id: 1 });
    const missing = await this.collection
      .find({ v1Id: { $exists: false } }, { projection: { _id: 1 } })
      .map((doc) => doc._id)
      .toArray();
    if (missing.length === 0) return;
    await this.collection.bulkWrite(
      missing.map((eventID) => ({
        updateOne: { filter: { _id: eventID }, update: { $set: { v1Id: v1.v1Id("event", eventID) } } },
      })),
      { ordered: false },
    );
  }

  async get(eventID: string): Promise<EventRef | undefined> {
    const cached = this.cache.get(eventID);
    if (cached) return cached;
    const doc = await this.collection.findOne({ _id: eventID });
    return doc ? this.remember(doc) : undefined;
  }

  /** The ref of a v1 event id (ev_...); undefined when it names no event we recorded. */
  async getByV1Id(v1EventID: string): Promise<EventRef | undefined> {
    const eventID = this.byV1Id.get(v1EventID);
    if (eventID !== undefined) return this.get(eventID);
    const doc = await this.collection.findOne({ v1Id: v1EventID });
    return doc ? this.remember(doc) : undefined;
  }

  private remember(doc: EventRefDocument): EventRef {
    const ref = { eventID: doc._id, sportID: doc.sportID, leagueID: doc.leagueID, startsAtMs: doc.startsAt.getTime() };
    this.cache.set(ref.eventID, ref);
    this.byV1Id.set(doc.v1Id ?? v1.v1Id("event", ref.eventID), ref.eventID);
    return ref;
  }

  /**
   * Stores refs that are new or changed (a kickoff can move); unchanged refs cost nothing. Refs not in
   * memory (after a restart, every event of the first cycle) are read first in one query, so only the
   * ones that really changed are written.
   */
  async save(refs: EventRef[]): Promise<void> {
    const unknown = refs.filter((ref) => !this.cache.has(ref.eventID)).map((ref) => ref.eventID);
    if (unknown.length > 0) {
      for (const doc of await this.collection.find({ _id: { $in: unknown } }).toArray()) this.remember(doc);
    }
    const changed = refs.filter((ref) => !sameRef(this.cache.get(ref.eventID), ref));
    if (changed.length === 0) return;
    await this.collection.bulkWrite(
      changed.map((ref) => ({
        updateOne: {
          filter: { _id: ref.eventID },
          update: {
            $set: {
              sportID: ref.sportID,
              leagueID: ref.leagueID,
              startsAt: new Date(ref.startsAtMs),
              v1Id: v1.v1Id("event", ref.eventID),
            },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    for (const ref of changed) this.cache.set(ref.eventID, ref);
  }
}

function sameRef(a: EventRef | undefined, b: EventRef): boolean {
  return a !== undefined && a.sportID === b.sportID && a.leagueID === b.leagueID && a.startsAtMs === b.startsAtMs;
}
