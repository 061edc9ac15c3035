import { connectMongo } from "@odds/platform";
import { MongoClient, type Db } from "mongodb";
import type { Logger } from "pino";
import { TickTier, type TickLayout } from "./tick-tier";

export interface HistoryStores {
  /** The live shard: recent ticks, last-quote state, event refs. */
  live: TickTier;
  archive: TickTier;
  liveDb: Db;
  close(): Promise<void>;
}

/**
 * The live shard is connected at start (the service cannot work without it). The archive
 * shard connects lazily: the service starts, records and serves recent ticks while the
 * archive is down, and readers degrade with a notice instead of failing.
 */
export async function connectHistoryStores(
  uris: { live: string; archive: string },
  logger: Logger,
  layout: TickLayout = "per-event",
): Promise<HistoryStores> {
  const liveStore = await connectMongo(uris.live, { appName: "history-live", logger });
  const archiveClient = new MongoClient(uris.archive, {
    appName: "history-archive",
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    maxPoolSize: 10,
  });
  return {
    live: new TickTier("live", liveStore.db, layout),
    archive: new TickTier("archive", archiveClient.db(), layout),
    liveDb: liveStore.db,
    async close() {
      await Promise.allSettled([liveStore.close(), archiveClient.close()]);
    },
  };
}
