import { createLogger, loadConfigOrExit, Lifecycle, startGrpcServer, unaryHandler } from "@odds/platform";
import { history } from "@odds/proto";
import { configSchema } from "./config";

async function main(): Promise<void> {
  const config = loadConfigOrExit(configSchema);
  const logger = createLogger("history");
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const implementation: history.HistoryServiceServer = {
    listTicks: unaryHandler(logger, async () => ({ items: [], nextCursor: "", notice: "" })),
    recordQuotes: unaryHandler(logger, async () => ({ ticksRecorded: 0 })),
  };
  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      { name: "odds.history.v1.HistoryService", definition: history.HistoryServiceService, implementation },
    ],
    logger,
  });
  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  lifecycle.listen();
}

void main();
