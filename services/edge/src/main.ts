import { createLogger, Lifecycle, loadConfigOrExit } from "@odds/platform";
import { createEdgeApp } from "./app";
import { edgeConfigSchema } from "./config";
import { closeDownstreamClients, createDownstreamClients } from "./gateways/clients";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require("../package.json") as { version: string };

async function main(): Promise<void> {
  const config = loadConfigOrExit(edgeConfigSchema);
  const logger = createLogger("edge", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const clients = createDownstreamClients(
    {
      events: config.EVENTS_SERVICE_ADDR,
      history: config.HISTORY_SERVICE_ADDR,
      catalogue: config.CATALOGUE_SERVICE_ADDR,
      usage: config.USAGE_SERVICE_ADDR,
    },
    config.DOWNSTREAM_DEADLINE_MS,
  );
  const app = createEdgeApp({
    logger,
    retired: config.V2_RETIRED,
    health: {
      version,
      startedAtMs: Date.now(),
      staleAfterMs: config.PIPELINE_STALE_AFTER_MS,
      events: clients.events,
      rateLimiterReachable: () => true,
    },
  });
  const server = app.listen(config.HTTP_PORT, () => logger.info({ port: config.HTTP_PORT }, "edge listening"));
  lifecycle.onShutdown("http", () => new Promise<void>((resolve) => server.close(() => resolve())));
  lifecycle.onShutdown("grpc clients", () => closeDownstreamClients(clients));
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`edge failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
