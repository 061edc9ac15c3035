import { ensureIndexes } from "@odds/platform";
import { events } from "@odds/proto";
import { Binary, type Collection, type Db, type IndexDescription } from "mongodb";

/**
 * The events database: one document per event (the Event proto as bytes, because alternate
 * lines are keyed by values such as "45.5" that cannot be document keys) and one feed-state
 * document whose version tells every replica when to reload.
 */

interface EventDocument {
  _id: string;
  /** Feed version of the cycle that last changed this event. */
  version: number;
  contentHash: string;
  sportId: string;
  leagueId: string;
  startsAtMs: number;
  event: Binary;
}

interface FeedStateDocument {
  _id: "feed";
  version: number;
  cycleId: string;
  lastCycleAtMs: number;
  observedAtMs: number;
}

export interface StoredEvent {
  event: events.Event;
  contentHash: string;
}

export interface StoredFeedState {
  version: number;
  cycleId: string;
  lastCycleAtMs: number;
  observedAtMs: number;
}

export const EVENTS_INDEXES: Record<string, IndexDescription[]> = {
  events: [
    { key: { version: 1 }, name: "version" },
    { key: { leagueId: 1, startsAtMs: 1 }, name: "league_startsAt" },
  ],
};

const WRITE_BATCH = 200;

export class EventStore {
  private readonly events: Collection<EventDocument>;
  private readonly feed: Collection<FeedStateDocument>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDocument>("events");
    this.feed = db.collection<FeedStateDocument>("feed_state");
  }

  ensureIndexes(): Promise<void> {
    return ensureIndexes(this.db, EVENTS_INDEXES);
  }

  async readFeedState(): Promise<StoredFeedState> {
    const doc = await this.feed.findOne({ _id: "feed" });
    return {
      version: doc?.version ?? 0,
      cycleId: doc?.cycleId ?? "",
      lastCycleAtMs: doc?.lastCycleAtMs ?? 0,
      observedAtMs: doc?.observedAtMs ?? 0,
    };
  }

  async writeFeedState(state: StoredFeedState): Promise<void> {
    await this.feed.replaceOne({ _id: "feed" }, state, { upsert: true });
  }

  /** Events changed by cycles newer than `version` (0 loads everything). */
  async loadEventsSince(version: number): Promise<StoredEvent[]> {
    const docs = await this.events
      .find(version === 0 ? {} : { version: { $gt: version } }, { projection: { contentHash: 1, event: 1 } })
      .toArray();
    return docs.map((doc) => ({ event: events.Event.decode(doc.event.buffer), contentHash: doc.contentHash }));
  }

  async upsertEvents(changed: readonly StoredEvent[], version: number): Promise<void> {
    for (let i = 0; i < changed.length; i += WRITE_BATCH) {
      const batch = changed.slice(i, i + WRITE_BATCH).map(({ event, contentHash }) => ({
        replaceOne: {
          filter: { _id: event.eventId },
          replacement: {
            version,
            contentHash,
            sportId: event.sportId,
            leagueId: event.leagueId,
            startsAtMs: event.status?.startsAtMs ?? 0,
            event: new Binary(events.Event.encode(event).finish()),
          },
          upsert: true,
        },
      }));
      await this.events.bulkWrite(batch, { ordered: false });
    }
  }
}
