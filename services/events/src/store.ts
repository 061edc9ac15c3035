import { ensureIndexes, keptBytes, packJson, unpackJson } from "@odds/platform";
import { v1 } from "@odds/proto";
import { Binary, type Collection, type Db, type IndexDescription } from "mongodb";
import type { StoredEventData } from "./event-preparation";
import type { SettlementBook } from "./grading/settlement";
import type { MarketBook } from "./market-book";
import type { FeedState } from "./read-model";
import type { ObservationStamps } from "./stamps";

/**
 * The events database: one document per event holding its full contract JSON, compressed
 * (alternate lines are keyed by values such as "45.5" that cannot be field names, and an event
 * with every bookmaker's price is large), plus one feed-state document whose version tells every
 * replica when to reload.
 */

interface EventDocument {
  _id: string;
  /** Feed version of the cycle that last changed this event. */
  version: number;
  contentHash: string;
  sportId: string;
  leagueId: string;
  startsAtMs: number;
  /** The event's v1 id (ev_...): resolvable back to this document by the index of the same name. */
  v1Id: string;
  /** The full contract Event as UTF-8 JSON, raw-deflated. */
  contract: Binary;
  /** Every side the event has been priced on, as last seen (JSON, raw-deflated): what its result is graded on. */
  marketBook?: Binary;
  /** The verdicts settled so far and the corrections applied (JSON, raw-deflated): a replay or restart keeps them. */
  settlement?: Binary;
}

/**
 * An event's observation times, newer than those inside its contract: written when a cycle
 * carried the event unchanged, so the large contract document is not rewritten for them.
 */
interface StampsDocument {
  _id: string;
  /** Feed version of the cycle that last moved them. */
  version: number;
  lastUpdatedAtMs: number;
  /** bookmakerID -> observed at (Unix ms). */
  bookmakers: Record<string, number>;
}

interface FeedStateDocument {
  _id: "feed";
  version: number;
  cycleId: string;
  lastCycleAtMs: number;
  observedAtMs: number;
}

/** A stored event as loaded: its packed contract and what was stored beside it (`StoredEventData`). */
export interface StoredEvent extends StoredEventData {
  packed: Buffer;
}

/** What a write of one changed event stores: the contract packed, not the contract's object tree. */
export interface EventWrite {
  eventID: string;
  sportID: string;
  leagueID: string;
  startsAtMs: number;
  packed: Uint8Array;
  contentHash: string;
  marketBook?: MarketBook;
  settlement?: SettlementBook;
}

export const EVENTS_INDEXES: Record<string, IndexDescription[]> = {
  events: [
    { key: { version: 1 }, name: "version" },
    { key: { leagueId: 1, startsAtMs: 1 }, name: "league_startsAt" },
    { key: { v1Id: 1 }, name: "v1Id" },
  ],
  event_stamps: [{ key: { version: 1 }, name: "version" }],
};

// FerretDB 1.24 hung on one update command of more than ~99 matching statements (fixed in our local
// build, deploy/local/build-ferretdb.sh; a stock FerretDB still has it): small batches are safe anywhere.
const WRITE_BATCH = 25;
/** Stamps documents are a few hundred bytes: far more fit one call. */
const STAMPS_WRITE_BATCH = 500;

export class EventStore {
  private readonly events: Collection<EventDocument>;
  private readonly feed: Collection<FeedStateDocument>;
  private readonly stamps: Collection<StampsDocument>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDocument>("events");
    this.stamps = db.collection<StampsDocument>("event_stamps");
    this.feed = db.collection<FeedStateDocument>("feed_state");
  }

  ensureIndexes(): Promise<void> {
    return ensureIndexes(this.db, EVENTS_INDEXES);
  }

  async readFeedState(): Promise<FeedState> {
    const doc = await this.feed.findOne({ _id: "feed" });
    return {
      version: doc?.version ?? 0,
      cycleId: doc?.cycleId ?? "",
      lastCycleAtMs: doc?.lastCycleAtMs ?? 0,
      observedAtMs: doc?.observedAtMs ?? 0,
    };
  }

  async writeFeedState(state: FeedState): Promise<void> {
    await this.feed.replaceOne({ _id: "feed" }, state, { upsert: true });
  }

  /**
   * Events changed by cycles newer than `version` (0 loads everything), one at a time from the
   * cursor: a full load never holds every event's parsed contract at once.
   */
  async *loadEventsSince(version: number): AsyncGenerator<StoredEvent> {
    const cursor = this.events.find(version === 0 ? {} : { version: { $gt: version } }, {
      projection: { contentHash: 1, contract: 1, marketBook: 1, settlement: 1 },
      batchSize: 16,
    });
    for await (const doc of cursor) {
      // Out of the driver's batch (`keptBytes`), and kept packed, as stored: parsed on the preparation's worker.
      const settlement = unpacked<SettlementBook>(doc.settlement);
      yield {
        packed: keptBytes(doc.contract.buffer),
        contentHash: doc.contentHash,
        ...(doc.marketBook ? { marketBook: keptBytes(doc.marketBook.buffer) } : {}),
        ...(settlement ? { settlement } : {}),
      };
    }
  }

  /** Observation times moved by cycles newer than `version` (0 loads all), by eventID. */
  async loadStampsSince(version: number): Promise<Map<string, ObservationStamps>> {
    const docs = await this.stamps.find(version === 0 ? {} : { version: { $gt: version } }).toArray();
    return new Map(
      docs.map((doc) => [
        doc._id,
        { lastUpdatedAtMs: doc.lastUpdatedAtMs, bookmakers: new Map(Object.entries(doc.bookmakers)) },
      ]),
    );
  }

  async upsertStamps(restamped: ReadonlyMap<string, ObservationStamps>, version: number): Promise<void> {
    const writes = [...restamped].map(([eventID, stamps]) => ({
      replaceOne: {
        filter: { _id: eventID },
        replacement: {
          version,
          lastUpdatedAtMs: stamps.lastUpdatedAtMs,
          bookmakers: Object.fromEntries(stamps.bookmakers),
        },
        upsert: true,
      },
    }));
    for (let i = 0; i < writes.length; i += STAMPS_WRITE_BATCH) {
      await this.stamps.bulkWrite(writes.slice(i, i + STAMPS_WRITE_BATCH), { ordered: false });
    }
  }

  async upsertEvents(changed: readonly EventWrite[], version: number): Promise<void> {
    for (let i = 0; i < changed.length; i += WRITE_BATCH) {
      const batch = await Promise.all(
        changed.slice(i, i + WRITE_BATCH).map(async (event) => ({
          replaceOne: {
            filter: { _id: event.eventID },
            replacement: {
              version,
              contentHash: event.contentHash,
              sportId: event.sportID,
              leagueId: event.leagueID,
              startsAtMs: event.startsAtMs,
              v1Id: v1.v1Id("event", event.eventID),
              contract: new Binary(event.packed),
              ...(event.marketBook ? { marketBook: new Binary(event.marketBook.packed) } : {}),
              ...(event.settlement ? { settlement: new Binary(await packJson(JSON.stringify(event.settlement))) } : {}),
            },
            upsert: true,
          },
        })),
      );
      await this.events.bulkWrite(batch, { ordered: false });
    }
  }
}

function unpacked<T>(stored: Binary | undefined): T | undefined {
  return stored ? (JSON.parse(unpackJson(stored.buffer).toString("utf8")) as T) : undefined;
}
