import { connectMongo, createLogger, Lifecycle, startGrpcServer, startMetricsServer } from "@odds/platform";
import { catalogue } from "@odds/proto";
import { loadCatalogueConfig } from "./config";
import { catalogueRpc } from "./rpc";

async function main(): Promise<void> {
  const config = loadCatalogueConfig();
  const logger = createLogger("catalogue", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const mongo = await connectMongo(config.CATALOGUE_MONGODB_URI, { appName: "catalogue", logger });
  const metrics = await startMetricsServer(config.METRICS_PORT);
  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    logger,
    services: [
      {
        name: "odds.catalogue.v1.CatalogueService",
        definition: catalogue.CatalogueServiceService,
        implementation: catalogueRpc(logger),
      },
    ],
  });

  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("mongo", () => mongo.close());
  lifecycle.listen();
}

void main();
