import { MongoClient, type Db, type IndexDescription } from "mongodb";
import type { Logger } from "pino";

export interface MongoStore {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * A connection whose store sends nothing for this long is closed and its call fails, so a hung
 * store (stalled process, partition) releases every call and pooled connection in the end.
 * Requests are bounded much sooner by the callers' gRPC deadlines and the history tiers' read
 * deadlines; this one must exceed the longest legitimate query (a 50,000-tick scan on a loaded
 * FerretDB took over 15 s, which a 15 s value cut off).
 */
export const MONGO_SOCKET_TIMEOUT_MS = 120_000;

/**
 * Connects once per process. The database is the one named in the URI path
 * (mongodb://host:port/<db>), so each service owns its own database.
 */
export async function connectMongo(uri: string, options: { appName: string; logger: Logger }): Promise<MongoStore> {
  const client = new MongoClient(uri, {
    appName: options.appName,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    socketTimeoutMS: MONGO_SOCKET_TIMEOUT_MS,
    maxPoolSize: 20,
  });
  await client.connect();
  const db = client.db();
  options.logger.info({ database: db.databaseName }, "connected to MongoDB");
  return { client, db, close: () => client.close() };
}

/** Index bootstrap: every service declares its indexes once and creates them at start (idempotent). */
export async function ensureIndexes(db: Db, plan: Record<string, IndexDescription[]>): Promise<void> {
  for (const [collection, indexes] of Object.entries(plan)) {
    // One index per command: FerretDB v1 panics on a multi-index createIndexes when the indexes already exist.
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}
