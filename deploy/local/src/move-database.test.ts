import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { moveDatabase } from "./move-database";
import { testMongoUri, testStoresDir } from "./testing/stores";

let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(testMongoUri("move_db"));
});
afterAll(() => client.close());

function databases() {
  const [fromUri, toUri] = [testMongoUri("move_from"), testMongoUri("move_to")];
  const markerFile = join(mkdtempSync(join(testStoresDir(), "move-")), "to", "moving");
  return {
    fromUri,
    toUri,
    markerFile,
    source: client.db(new URL(fromUri).pathname.slice(1)),
    target: client.db(new URL(toUri).pathname.slice(1)),
  };
}

async function everything(db: ReturnType<MongoClient["db"]>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    out[name] = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
  }
  return out;
}

describe("moveDatabase (a data folder from before history's own FerretDB)", () => {
  it("moves every document and secondary index, drops the source, and is a no-op the second time", async () => {
    const { fromUri, toUri, markerFile, source, target } = databases();
    const buckets = Array.from({ length: 1234 }, (_, i) => ({ _id: `b${String(i).padStart(5, "0")}`, n: i }));
    await source.collection("buckets_afl").insertMany(buckets);
    await source.collection("buckets_afl").createIndex({ n: 1 }, { name: "by_n" });
    await source.collection("events").insertOne({ _id: "e1" as never, league: "AFL" });
    const before = await everything(source);

    const moved = await moveDatabase(fromUri, toUri, { markerFile });

    expect(moved).toEqual({ outcome: "moved", collections: 2, documents: 1235 });
    expect(await everything(target)).toEqual(before);
    expect((await target.collection("buckets_afl").indexes()).map((index) => index.name)).toContain("by_n");
    expect(await source.listCollections().toArray()).toEqual([]);
    expect(existsSync(markerFile)).toBe(false);
    expect(await moveDatabase(fromUri, toUri, { markerFile })).toEqual({
      outcome: "none",
      collections: 0,
      documents: 0,
    });
    expect(await everything(target)).toEqual(before);
  });

  it("redoes a move cut short (marker left, target partial) from scratch: nothing lost, nothing doubled", async () => {
    const { fromUri, toUri, markerFile, source, target } = databases();
    await source.collection("ticks").insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: `t${i}` as never, i })));
    const before = await everything(source);
    await target.collection("ticks").insertMany([{ _id: "t0" as never, i: 0 }]);
    await target.collection("stale").insertOne({ _id: "x" as never });
    mkdirSync(join(markerFile, ".."), { recursive: true });
    writeFileSync(markerFile, "moving\n");

    expect((await moveDatabase(fromUri, toUri, { markerFile })).outcome).toBe("moved");
    expect(await everything(target)).toEqual(before);
  });

  it("never overwrites a target that already holds data of its own (no marker): both left untouched", async () => {
    const { fromUri, toUri, markerFile, source, target } = databases();
    await source.collection("ticks").insertOne({ _id: "old" as never });
    await target.collection("ticks").insertOne({ _id: "new" as never });

    expect((await moveDatabase(fromUri, toUri, { markerFile })).outcome).toBe("both-hold-data");
    expect(await everything(source)).toEqual({ ticks: [{ _id: "old" }] });
    expect(await everything(target)).toEqual({ ticks: [{ _id: "new" }] });
  });
});
