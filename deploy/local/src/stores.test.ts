import { randomBytes } from "node:crypto";
import { Binary, MongoClient } from "mongodb";
import { createClient } from "redis";
import { testMongoUri, testRedisUrl } from "./testing/stores";

describe("local stores", () => {
  it("FerretDB stores and returns documents over the MongoDB wire protocol", async () => {
    const client = new MongoClient(testMongoUri("stores_smoke"));
    try {
      await client.connect();
      const ticks = client.db().collection<{ _id: string; price: number }>("ticks");
      await ticks.insertMany([
        { _id: "b", price: 2.1 },
        { _id: "a", price: 1.9 },
      ]);
      const found = await ticks.find({}).sort({ _id: 1 }).toArray();
      expect(found).toEqual([
        { _id: "a", price: 1.9 },
        { _id: "b", price: 2.1 },
      ]);
    } finally {
      await client.close();
    }
  });

  it("FerretDB looks documents up by _id through its _id index, not a scan of the collection", async () => {
    // deploy/local/build-ferretdb.sh makes FerretDB push the _id condition of a filter down as the
    // expression of its _id index; without it SQLite scans the table (plan "SCAN <table>") and
    // FerretDB parses every document.
    const client = new MongoClient(testMongoUri("stores_id_lookup"));
    try {
      await client.connect();
      const events = client.db().collection<{ _id: string; version: number }>("events");
      await events.deleteMany({});
      await events.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `ev${i}`, version: 1 })));
      await events.replaceOne({ _id: "ev7" }, { version: 2 }, { upsert: true });
      await events.replaceOne({ _id: "ev50" }, { version: 1 }, { upsert: true });

      // A filter on _id alone, and on _id with more conditions (a write at the version read).
      for (const filter of [{ _id: "ev7" }, { _id: "ev7", version: 2 }]) {
        const plan = (await events.find(filter).explain()) as { queryPlanner?: { Plan?: string[] } };
        const steps = plan.queryPlanner?.Plan ?? [];
        expect(steps.some((step) => /SEARCH \S+ USING INDEX \S+__id_ /.test(step))).toBe(true);
        expect(steps.some((step) => /\bSCAN\b/.test(step))).toBe(false);
      }
      // The other conditions still apply to what the index finds.
      expect((await events.replaceOne({ _id: "ev8", version: 2 }, { version: 3 })).matchedCount).toBe(0);
      expect((await events.replaceOne({ _id: "ev8", version: 1 }, { version: 3 })).matchedCount).toBe(1);
      expect((await events.deleteOne({ _id: "ev9", version: 2 })).deletedCount).toBe(0);
      expect(await events.countDocuments({ _id: "ev7", version: 1 })).toBe(0);
      expect(await events.findOne({ _id: "ev7" })).toEqual({ _id: "ev7", version: 2 });
      expect(await events.countDocuments({})).toBe(51);
    } finally {
      await client.close();
    }
  });

  it("FerretDB applies one update command of hundreds of statements that match documents", async () => {
    // Each statement's query used to stay open until the whole command ended, holding one of the
    // database's 100 SQLite connections: a bulkWrite of more than ~99 matching replaceOne waited
    // forever (deploy/local/build-ferretdb.sh). A socket timeout turns such a hang into a failure.
    const client = new MongoClient(testMongoUri("stores_bulk_update"), { socketTimeoutMS: 60_000 });
    try {
      await client.connect();
      const records = client.db().collection<{ _id: string; version: number }>("records");
      await records.deleteMany({});
      const ids = Array.from({ length: 250 }, (_, i) => `record-${i}`);
      await records.insertMany(ids.map((_id) => ({ _id, version: 1 })));
      const result = await records.bulkWrite(
        ids.map((_id) => ({ replaceOne: { filter: { _id }, replacement: { version: 2 }, upsert: true } })),
        { ordered: false },
      );
      expect(result.matchedCount).toBe(250);
      expect(await records.countDocuments({ version: 2 })).toBe(250);
    } finally {
      await client.close();
    }
  });

  it("FerretDB answers a query on one collection of a database of many from that collection alone", async () => {
    // deploy/local/build-ferretdb.sh (4): the metadata of the collection a find, aggregate or explain names is read
    // from FerretDB's registry instead of being searched for in a sorted copy of every collection's; the answers
    // are still those of the collection named, and none for a collection that does not exist.
    const client = new MongoClient(testMongoUri("stores_named_collections"));
    try {
      await client.connect();
      const db = client.db();
      await db.dropDatabase();
      for (let i = 0; i < 30; i++) await db.collection(`buckets_ev${i}`).insertOne({ _id: `h${i}`, n: i });
      expect(await db.collection("buckets_ev17").find({}).toArray()).toEqual([{ _id: "h17", n: 17 }]);
      expect(await db.collection("buckets_ev17").findOne({ _id: "h16" })).toBeNull();
      expect(
        await db
          .collection("buckets_ev3")
          .aggregate([{ $match: { n: 3 } }])
          .toArray(),
      ).toEqual([{ _id: "h3", n: 3 }]);
      expect(await db.collection("buckets_missing").find({}).toArray()).toEqual([]);
      expect(
        await db
          .collection("buckets_missing")
          .aggregate([{ $match: {} }])
          .toArray(),
      ).toEqual([]);
      expect((await db.listCollections({ name: "buckets_ev21" }).toArray()).map((c) => c.name)).toEqual([
        "buckets_ev21",
      ]);
      expect(await db.listCollections().toArray()).toHaveLength(30);
    } finally {
      await client.close();
    }
  });

  it("FerretDB returns every binary value it stored, byte for byte and with its subtype", async () => {
    // deploy/local/build-ferretdb.sh (5): a stored binary (base64 in FerretDB's JSON) is decoded by base64 alone.
    // Every length from 0 to 300 bytes (each padding of base64), random bytes (every character of its alphabet),
    // and two subtypes; read back by _id and in one listing, as history's buckets are.
    const client = new MongoClient(testMongoUri("stores_binaries"));
    try {
      await client.connect();
      const blobs = client.db().collection<{ _id: number; bytes: Binary }>("blobs");
      await blobs.deleteMany({});
      const stored = Array.from({ length: 301 }, (_, size) => ({
        _id: size,
        bytes: new Binary(randomBytes(size), size % 2 === 0 ? Binary.SUBTYPE_DEFAULT : Binary.SUBTYPE_USER_DEFINED),
      }));
      await blobs.insertMany(stored);
      const listed = await blobs.find({}).sort({ _id: 1 }).toArray();
      const looked = await Promise.all([0, 1, 2, 3, 299, 300].map((id) => blobs.findOne({ _id: id })));
      const contents = (blob: { _id: number; bytes: Binary }) => [
        blob._id,
        blob.bytes.sub_type,
        blob.bytes.toString("hex"),
      ];
      expect(listed.map(contents)).toEqual(stored.map(contents));
      expect(looked.map((blob) => contents(blob!))).toEqual([0, 1, 2, 3, 299, 300].map((id) => contents(stored[id]!)));
    } finally {
      await client.close();
    }
  });

  it("redis-server runs Lua scripts atomically", async () => {
    const client = createClient({ url: testRedisUrl() });
    await client.connect();
    try {
      const key = `smoke:${Date.now()}`;
      const result = await client.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", {
        keys: [key],
        arguments: ["3"],
      });
      expect(result).toBe(3);
    } finally {
      await client.quit();
    }
  });
});
