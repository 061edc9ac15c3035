import {
  connectMongo,
  createLogger,
  Lifecycle,
  loadConfigOrExit,
  serviceRelease,
  setHeapGrowingPercent,
  startGrpcServer,
  startMetricsServer,
} from "@odds/platform";
import { eventsConfigSchema } from "./config";
import { EventPreparer } from "./event-preparer";
import { ReadModelSync } from "./read-model-sync";
import { EventReadModel } from "./read-model";
import { eventsRpc, eventsServiceDefinition } from "./rpc";
import { EventStore } from "./store";

async function main(): Promise<void> {
  const config = loadConfigOrExit(eventsConfigSchema);
  // Set before the store's load allocates the read model, so every heap limit after it is set this way.
  setHeapGrowingPercent(config.EVENTS_HEAP_GROWING_PERCENT);
  const logger = createLogger("events", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const mongo = await connectMongo(config.EVENTS_MONGODB_URI, { appName: "events", logger });
  const release = serviceRelease(__dirname);
  logger.info({ release }, "code release, named in every page tag");
  const model = new EventReadModel({ fairOddsBookmakers: config.FAIR_ODDS_BOOKMAKERS, release });
  const preparer = new EventPreparer();
  const feed = new ReadModelSync(new EventStore(mongo.db), model, logger, preparer);
  await feed.load();
  feed.startPolling(config.EVENTS_REFRESH_INTERVAL_MS);

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      {
        name: "odds.events.v1.EventsService",
        definition: eventsServiceDefinition,
        implementation: eventsRpc(logger, model, feed),
      },
    ],
    logger,
  });
  const metrics = await startMetricsServer(config.METRICS_PORT);

  // Watches never end on their own: ended first, so the server's drain waits for calls that do.
  lifecycle.onShutdown("feed status watches", () => feed.endWatches());
  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("feed", () => feed.stop());
  lifecycle.onShutdown("preparation worker", () => preparer.close());
  lifecycle.onShutdown("mongo", () => mongo.close());
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`events failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
