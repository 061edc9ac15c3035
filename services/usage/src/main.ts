import {
  connectMongo,
  createLogger,
  createRedisClient,
  ensureIndexes,
  KeyRevisions,
  Lifecycle,
  loadConfigOrExit,
  startGrpcServer,
  startMetricsServer,
} from "@odds/platform";
import { usage } from "@odds/proto";
import { usageConfigSchema } from "./config";
import { KEY_INDEXES, KeyRegistry } from "./keys";
import { keyRevisionWriteFailures } from "./metrics";
import { PlanBook } from "./plans";
import { usageService } from "./rpc";
import { ROLLUP_INDEXES, UsageRollups } from "./usage-rollups";

async function main(): Promise<void> {
  const config = loadConfigOrExit(usageConfigSchema);
  const logger = createLogger("usage", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);

  const plans = PlanBook.fromFile(config.PLANS_FILE);
  const store = await connectMongo(config.USAGE_MONGODB_URI, { appName: "usage", logger });
  await ensureIndexes(store.db, { ...KEY_INDEXES, ...ROLLUP_INDEXES });
  // While Redis is down a key change stands without its revision (KeyRevisions logs and counts it).
  const redis = createRedisClient(config.REDIS_URL);
  redis.on("error", () => undefined);
  redis.connect().catch(() => undefined);
  const revisions = new KeyRevisions(redis, logger, { failures: keyRevisionWriteFailures });
  const keys = new KeyRegistry(store.db, revisions);
  const rollups = new UsageRollups(store.db);

  for (const seed of config.BOOTSTRAP_API_KEYS) {
    const record = await keys.seed(seed.apiKey, seed);
    logger.info({ keyID: record.keyID, tier: record.tier }, "bootstrap key present");
  }

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    logger,
    services: [
      {
        name: "odds.usage.v1.UsageService",
        definition: usage.UsageServiceService,
        implementation: usageService(logger, { keys, plans, rollups }),
      },
    ],
  });
  const metrics = await startMetricsServer(config.METRICS_PORT);

  lifecycle.onShutdown("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS - 1_000));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("redis", async () => {
    if (redis.isOpen) await redis.quit();
  });
  lifecycle.onShutdown("mongo", () => store.close());
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`usage failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
