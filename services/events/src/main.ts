import { createLogger, Lifecycle, loadConfigOrExit, startGrpcServer, startMetricsServer } from "@odds/platform";
import { events } from "@odds/proto";
import { eventsConfigSchema } from "./config";
import { eventsRpc } from "./rpc";

async function main(): Promise<void> {
  const config = loadConfigOrExit(eventsConfigSchema);
  const logger = createLogger("events", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      {
        name: "odds.events.v1.EventsService",
        definition: events.EventsServiceService,
        implementation: eventsRpc(logger),
      },
    ],
    logger,
  });
  const metrics = await startMetricsServer(config.METRICS_PORT);

  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.listen();
}

void main();
