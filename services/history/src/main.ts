import {
  createLogger,
  loadConfigOrExit,
  Lifecycle,
  serviceRelease,
  setHeapGrowingPercent,
  startGrpcServer,
  startMetricsServer,
} from "@odds/platform";
import { v1 } from "@odds/proto";
import { Archiver } from "./archiver";
import { BookStateStore } from "./book-states";
import { configSchema } from "./config";
import { EventRefStore } from "./event-refs";
import { TickReader } from "./reader";
import { QuoteRecorder } from "./recorder";
import { HistoryFiles } from "./files/history-files";
import { historyRpc, historyServiceDefinition } from "./rpc";
import { connectHistoryStores } from "./tier-stores";

async function main(): Promise<void> {
  const config = loadConfigOrExit(configSchema);
  // Set before the books and the calls allocate, so every heap limit after it is set this way.
  setHeapGrowingPercent(config.HISTORY_HEAP_GROWING_PERCENT);
  const logger = createLogger("history", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const stores = await connectHistoryStores(
    { live: config.HISTORY_LIVE_MONGODB_URI, archive: config.HISTORY_ARCHIVE_MONGODB_URI },
    logger,
    config.HISTORY_TICK_LAYOUT,
  );
  const books = new BookStateStore(stores.live);
  const eventRefs = new EventRefStore(stores.liveDb);
  await eventRefs.prepare();

  const recorder = new QuoteRecorder(stores.live, books, eventRefs);
  const historyStarts = new v1.HistoryStarts(config.HISTORY_CONVERTED_LEAGUES);
  const release = serviceRelease(__dirname);
  logger.info({ release }, "code release, named in every page tag");
  const reader = new TickReader(stores.live, stores.archive, eventRefs, {
    liveRetentionDays: config.HISTORY_LIVE_RETENTION_DAYS,
    archiveReadTimeoutMs: config.ARCHIVE_READ_TIMEOUT_MS,
    liveReadTimeoutMs: config.LIVE_READ_TIMEOUT_MS,
    revisionTrustMs: config.HISTORY_REVISION_TRUST_MS,
    historyStarts,
    release,
  });
  const archiver = new Archiver(stores.live, stores.archive, {
    retentionDays: config.HISTORY_LIVE_RETENTION_DAYS,
    batchSize: config.ARCHIVE_BATCH_SIZE,
    logger,
  });

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      {
        name: "odds.history.v1.HistoryService",
        definition: historyServiceDefinition,
        implementation: historyRpc(logger, {
          recorder,
          reader,
          files: HistoryFiles.over(stores, eventRefs, reader, historyStarts),
        }),
      },
    ],
    logger,
  });
  const metricsServer = await startMetricsServer(config.METRICS_PORT);

  let archiving: NodeJS.Timeout | undefined;
  if (config.ARCHIVE_INTERVAL_MS > 0) {
    archiving = setInterval(() => {
      archiver.runOnce().catch((err: unknown) => logger.warn({ err }, "archiver pass failed; retrying next interval"));
    }, config.ARCHIVE_INTERVAL_MS);
  }

  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.onShutdown("archiver", async () => {
    clearInterval(archiving);
    await archiver.idle();
  });
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("stores", () => stores.close());
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`history failed to start: ${String(err)}\n`);
  process.exit(1);
});
