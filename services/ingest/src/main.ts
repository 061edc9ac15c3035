import { createLogger, Lifecycle, loadConfigOrExit, startGrpcServer, startMetricsServer } from "@odds/platform";
import { ingestConfigSchema } from "./config";

async function main(): Promise<void> {
  const config = loadConfigOrExit(ingestConfigSchema);
  const logger = createLogger("ingest", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const grpcServer = await startGrpcServer({ port: config.GRPC_PORT, services: [], logger });
  const metricsServer = await startMetricsServer(config.METRICS_PORT);
  lifecycle.onShutdown("grpc", () => grpcServer.shutdown(config.SHUTDOWN_TIMEOUT_MS));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
  );
  lifecycle.listen();
  logger.info({ intervalMs: config.INGEST_INTERVAL_MS }, "ingest started (no-op cycle)");
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest failed to start: ${String(err)}\n`);
  process.exit(1);
});
