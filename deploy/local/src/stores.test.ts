import { MongoClient } from "mongodb";
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
