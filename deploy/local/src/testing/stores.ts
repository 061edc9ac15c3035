import { randomBytes } from "node:crypto";

/**
 * A MongoDB URI on the test FerretDB with a database of its own, so test files never
 * see each other's data. Only valid inside Jest (the global setup starts the server).
 */
export function testMongoUri(prefix: string): string {
  const base = process.env.TEST_MONGODB_URL;
  if (!base) throw new Error("TEST_MONGODB_URL is not set: run through `npm test` (jest global setup starts FerretDB)");
  return `${base}/${prefix}_${randomBytes(4).toString("hex")}`;
}

/** The test redis-server URL. Tests isolate themselves by key prefix. */
export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url)
    throw new Error("TEST_REDIS_URL is not set: run through `npm test` (jest global setup starts redis-server)");
  return url;
}

/** Where the test stores keep data and logs (to start extra servers beside them). */
export function testStoresDir(): string {
  return process.env.TEST_STORES_DIR ?? "/tmp";
}
