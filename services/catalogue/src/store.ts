import type { AnyBulkWriteOperation, Db } from "mongodb";
import type { EventState } from "./domain/activity";
import type {
  CatalogueChanges,
  CatalogueSnapshot,
  LeagueRecord,
  PlayerRecord,
  SportRecord,
  StatRecord,
  TeamRecord,
} from "./domain/catalogue";
import type { MarketDefinition } from "./domain/market-definition";

/** Collection per record kind; each document's _id is the record's own id. */
const COLLECTIONS = {
  sports: "sports",
  leagues: "leagues",
  teams: "teams",
  players: "players",
  stats: "stats",
  markets: "markets",
  events: "event_markets",
  meta: "catalogue_meta",
} as const;

const REVISION_ID = "revision";

type IdentifiedRecord = { _id: string } & Record<string, unknown>;

type RecordKind = Exclude<keyof typeof COLLECTIONS, "meta">;
const ID_FIELD: Record<RecordKind, string> = {
  sports: "sportID",
  leagues: "leagueID",
  teams: "teamID",
  players: "playerID",
  stats: "statID",
  markets: "oddID",
  events: "eventID",
};

/**
 * The catalogue's MongoDB collections. Every record is written whole by its id (replace with
 * upsert), so replaying a write changes nothing. The revision counter lets other replicas
 * notice a write and reload. Reads are served from memory and every query here is by _id or
 * a full load at start, so no secondary index is needed.
 */
export class CatalogueStore {
  constructor(private readonly db: Db) {}

  async load(): Promise<{ snapshot: CatalogueSnapshot; revision: number }> {
    const [revision, sports, leagues, teams, players, stats, markets, events] = await Promise.all([
      this.revision(),
      this.all<SportRecord>("sports"),
      this.all<LeagueRecord>("leagues"),
      this.all<TeamRecord>("teams"),
      this.all<PlayerRecord>("players"),
      this.all<StatRecord>("stats"),
      this.all<MarketDefinition>("markets"),
      this.all<EventState>("events"),
    ]);
    return { snapshot: { sports, leagues, teams, players, stats, markets, events }, revision };
  }

  async revision(): Promise<number> {
    const doc = await this.db
      .collection<{ _id: string; value: number }>(COLLECTIONS.meta)
      .findOne({ _id: REVISION_ID });
    return doc?.value ?? 0;
  }

  /** Writes changed records (entities and markets before events), then bumps the revision. */
  async save(changes: CatalogueChanges): Promise<number> {
    const kinds: RecordKind[] = ["sports", "leagues", "teams", "players", "stats", "markets"];
    await Promise.all(kinds.map((kind) => this.replaceAll(kind, changes[kind] as object[])));
    await this.replaceAll("events", changes.events);
    const doc = await this.db
      .collection<{ _id: string; value: number }>(COLLECTIONS.meta)
      .findOneAndUpdate({ _id: REVISION_ID }, { $inc: { value: 1 } }, { upsert: true, returnDocument: "after" });
    return doc?.value ?? 0;
  }

  private async replaceAll(kind: RecordKind, records: object[]): Promise<void> {
    if (records.length === 0) return;
    const idField = ID_FIELD[kind];
    const operations: AnyBulkWriteOperation<IdentifiedRecord>[] = records.map((record) => {
      const id = (record as Record<string, string>)[idField] as string;
      return { replaceOne: { filter: { _id: id }, replacement: { _id: id, ...record }, upsert: true } };
    });
    await this.db.collection<IdentifiedRecord>(COLLECTIONS[kind]).bulkWrite(operations, { ordered: false });
  }

  private async all<T>(kind: RecordKind): Promise<T[]> {
    const docs = await this.db.collection(COLLECTIONS[kind]).find({}).toArray();
    return docs.map(({ _id, ...record }) => record as T);
  }
}
