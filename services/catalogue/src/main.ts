import { connectMongo, createLogger, Lifecycle, startGrpcServer, startMetricsServer } from "@odds/platform";
import { v1 } from "@odds/proto";
import { loadCatalogueConfig } from "./config";
import { catalogueRpc, catalogueServiceDefinition } from "./rpc";
import { PersistedCatalogue } from "./persisted-catalogue";
import { CatalogueStore } from "./store";

async function main(): Promise<void> {
  const config = loadCatalogueConfig();
  const logger = createLogger("catalogue", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const mongo = await connectMongo(config.CATALOGUE_MONGODB_URI, { appName: "catalogue", logger });
  const service = await PersistedCatalogue.open(new CatalogueStore(mongo.db), logger, {
    eventTtlMs: config.CATALOGUE_EVENT_TTL_MS,
    marketViewBytes: config.CATALOGUE_MARKET_VIEW_BYTES,
  });
  const refresh = setInterval(() => {
    service.refreshIfBehind().catch((err: unknown) => logger.warn({ err }, "catalogue refresh failed"));
  }, config.CATALOGUE_REFRESH_MS);
  refresh.unref();

  const metrics = await startMetricsServer(config.METRICS_PORT);
  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    logger,
    services: [
      {
        name: "odds.catalogue.v1.PersistedCatalogue",
        definition: catalogueServiceDefinition,
        implementation: catalogueRpc(service, logger, new v1.HistoryStarts(config.HISTORY_CONVERTED_LEAGUES)),
      },
    ],
  });

  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.onShutdown("refresh", () => clearInterval(refresh));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("mongo", () => mongo.close());
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`catalogue failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
