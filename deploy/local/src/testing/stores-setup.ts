// Jest global setup for service tests: one real FerretDB and one real redis-server on
// free loopback ports for the whole run. Each test file takes its own database.
import { join } from "node:path";
import { freePort } from "../processes";
import { logPath, startFerretDb, startRedis } from "../stores";
import { scratchFolder } from "./scratch";

export default async function setup(): Promise<void> {
  const dataDir = scratchFolder("odds-test-stores-");
  const [mongo, redis] = await Promise.all([
    freePort().then((port) =>
      startFerretDb({ port, dataDir: join(dataDir, "ferretdb"), logFile: logPath(dataDir, "ferretdb") }),
    ),
    freePort().then((port) =>
      startRedis({ port, dataDir: join(dataDir, "redis"), logFile: logPath(dataDir, "redis"), persist: false }),
    ),
  ]);
  process.env.TEST_MONGODB_URL = mongo.url;
  process.env.TEST_REDIS_URL = redis.url;
  process.env.TEST_STORES_DIR = dataDir;
  (globalThis as { __ODDS_TEST_STORES__?: unknown }).__ODDS_TEST_STORES__ = [mongo, redis];
}
