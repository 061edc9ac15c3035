import type { AnyBulkWriteOperation, Db } from "mongodb";
import type { EventState } from "./domain/activity";
import type { CatalogueChanges, CatalogueSnapshot, StoredKind } from "./domain/catalogue";

/** Collection per record kind; each document's _id is the record's own id. */
const COLLECTIONS: Record<StoredKind | "meta", string> = {
  sports: "sports",
  leagues: "leagues",
  teams: "teams",
  players: "players",
  stats: "stats",
  events: "event_markets",
  meta: "catalogue_meta",
};

const ID_FIELD: Record<StoredKind, string> = {
  sports: "sportID",
  leagues: "leagueID",
  teams: "teamID",
  players: "playerID",
  stats: "statID",
  events: "eventID",
};

const REVISION_ID = "revision";

type StoredDocument = { _id: string } & Record<string, unknown>;

/**
 * An event's markets are stored as flat strings ("oddID bookmakerID bookmakerID ..."): FerretDB
 * writes a document of nested objects an order of magnitude slower than one of strings.
 * Neither oddIDs nor bookmakerIDs contain spaces.
 */
function encodeEvent(event: EventState): Record<string, unknown> {
  return { ...event, markets: event.markets.map((market) => [market.oddID, ...market.bookmakerIDs].join(" ")) };
}

function decodeEvent(doc: Record<string, unknown>): EventState {
  const markets = (doc.markets as string[]).map((entry) => {
    const [oddID, ...bookmakerIDs] = entry.split(" ");
    return { oddID: oddID as string, bookmakerIDs };
  });
  return {
    eventID: doc.eventID as string,
    sportID: doc.sportID as string,
    leagueID: doc.leagueID as string,
    active: doc.active as boolean,
    markets,
  };
}

/**
 * The catalogue's MongoDB collections. Records are written whole by id: a new one is inserted,
 * a changed one replaced, so replaying a write changes nothing. Market definitions are not
 * stored; they are derived again from the events at load. The revision counter lets other
 * replicas notice a write and reload. Reads are served from memory and every query here is by
 * _id or a full load at start, so no secondary index is needed.
 */
export class CatalogueStore {
  constructor(private readonly db: Db) {}

  async load(): Promise<{ snapshot: CatalogueSnapshot; revision: number }> {
    const [revision, sports, leagues, teams, players, stats, events] = await Promise.all([
      this.revision(),
      this.all("sports"),
      this.all("leagues"),
      this.all("teams"),
      this.all("players"),
      this.all("stats"),
      this.all("events"),
    ]);
    return {
      snapshot: {
        sports: sports as unknown as CatalogueSnapshot["sports"],
        leagues: leagues as unknown as CatalogueSnapshot["leagues"],
        teams: teams as unknown as CatalogueSnapshot["teams"],
        players: players as unknown as CatalogueSnapshot["players"],
        stats: stats as unknown as CatalogueSnapshot["stats"],
        events: events.map(decodeEvent),
      },
      revision,
    };
  }

  async revision(): Promise<number> {
    const doc = await this.db
      .collection<{ _id: string; value: number }>(COLLECTIONS.meta)
      .findOne({ _id: REVISION_ID });
    return doc?.value ?? 0;
  }

  /**
   * Writes changed records, then bumps the revision. `stored` says whether the store already
   * holds a record: new ones are inserted (far cheaper than an upsert on FerretDB).
   */
  async save(changes: CatalogueChanges, stored: (kind: StoredKind, id: string) => boolean): Promise<number> {
    const kinds: StoredKind[] = ["sports", "leagues", "teams", "players", "stats"];
    await Promise.all(kinds.map((kind) => this.write(kind, changes[kind] as object[], stored)));
    await this.write("events", changes.events.map(encodeEvent), stored);
    const doc = await this.db
      .collection<{ _id: string; value: number }>(COLLECTIONS.meta)
      .findOneAndUpdate({ _id: REVISION_ID }, { $inc: { value: 1 } }, { upsert: true, returnDocument: "after" });
    return doc?.value ?? 0;
  }

  private async write(kind: StoredKind, records: object[], stored: (kind: StoredKind, id: string) => boolean) {
    if (records.length === 0) return;
    const collection = this.db.collection<StoredDocument>(COLLECTIONS[kind]);
    const documents = records.map((record) => ({
      _id: (record as Record<string, string>)[ID_FIELD[kind]] as string,
      ...record,
    }));
    const fresh = documents.filter((doc) => !stored(kind, doc._id));
    const replaced = documents.filter((doc) => stored(kind, doc._id));
    if (fresh.length > 0) {
      try {
        await collection.insertMany(fresh, { ordered: false });
      } catch (err) {
        // Another replica wrote some of them first: replace what could not be inserted.
        if ((err as { code?: number }).code !== 11000) throw err;
        replaced.push(...fresh);
      }
    }
    if (replaced.length === 0) return;
    const operations: AnyBulkWriteOperation<StoredDocument>[] = replaced.map((doc) => ({
      replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true },
    }));
    await collection.bulkWrite(operations, { ordered: false });
  }

  private async all(kind: StoredKind): Promise<Record<string, unknown>[]> {
    const docs = await this.db.collection<StoredDocument>(COLLECTIONS[kind]).find({}).toArray();
    return docs.map(({ _id, ...record }) => record);
  }
}
