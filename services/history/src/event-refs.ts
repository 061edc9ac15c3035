import { LRUCache } from "lru-cache";
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
}

/** Refs held in memory: far more than the events a day's cycles carry; an evicted ref is read or rewritten once more. */
const CACHED_REFS = 100_000;

/** Event refs sent with RecordQuotes, kept in the live shard and cached in memory (they rarely change). */
export class EventRefStore {
  private readonly collection: Collection<EventRefDocument>;
  private readonly cache = new LRUCache<string, EventRef>({ max: CACHED_REFS });

  constructor(db: Db) {
    this.collection = db.collection<EventRefDocument>("events");
  }

  async get(eventID: string): Promise<EventRef | undefined> {
    const cached = this.cache.get(eventID);
    if (cached) return cached;
    const doc = await this.collection.findOne({ _id: eventID });
    if (!doc) return undefined;
    const ref = { eventID, sportID: doc.sportID, leagueID: doc.leagueID, startsAtMs: doc.startsAt.getTime() };
    this.cache.set(eventID, ref);
    return ref;
  }

  /** Stores refs that are new or changed (a kickoff can move); unchanged refs cost nothing. */
  async save(refs: EventRef[]): Promise<void> {
    const changed = refs.filter((ref) => !sameRef(this.cache.get(ref.eventID), ref));
    if (changed.length === 0) return;
    await this.collection.bulkWrite(
      changed.map((ref) => ({
        updateOne: {
          filter: { _id: ref.eventID },
          update: { $set: { sportID: ref.sportID, leagueID: ref.leagueID, startsAt: new Date(ref.startsAtMs) } },
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
