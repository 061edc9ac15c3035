import {
  connectMongo,
  createLogger,
  Lifecycle,
  loadConfigOrExit,
  startGrpcServer,
  startMetricsServer,
} from "@odds/platform";
import { backfillStart, runBackfill } from "./backfill";
import { ingestConfigSchema } from "./config";
import { clockFrom, CycleLoop } from "./cycle-loop";
import { CycleRunner } from "./cycle-runner";
import { prometheusObserver, upstreamWiring } from "./metrics";
import { GrpcCatalogueNames } from "./readers/catalogue-names";
import { DEFAULT_SOURCES_FILE, loadSources } from "./sources/sources-file";
import { retryUntilDone } from "./startup-retry";
import { SpendStore } from "./store/spend-store";
import { GrpcCycleSink } from "./writers/grpc-sink";

async function main(): Promise<void> {
  const config = loadConfigOrExit(ingestConfigSchema);
  const logger = createLogger("ingest", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const clock = clockFrom(config.INGEST_CLOCK_START ? new Date(config.INGEST_CLOCK_START) : undefined);
  const startedAt = new Date(clock());

  // Ingest's own store holds only what real sources spent of their plans; simulated runs need none.
  const mongo = config.INGEST_MONGODB_URI
    ? await connectMongo(config.INGEST_MONGODB_URI, { appName: "ingest", logger })
    : undefined;
  const sources = loadSources(
    config.SOURCES_FILE ?? DEFAULT_SOURCES_FILE,
    {
      seed: config.SIM_SEED,
      quietLeagues: config.SIM_QUIET_LEAGUES,
      quietSince: new Date(startedAt.getTime() - config.SIM_QUIET_MINUTES * 60_000),
      horizonDays: config.SIM_HORIZON_DAYS,
      marketsOpenDays: config.SIM_MARKETS_OPEN_DAYS,
    },
    { ...upstreamWiring(logger), spendLedger: mongo ? new SpendStore(mongo.db) : undefined },
  );
  const sink = new GrpcCycleSink({
    eventsAddr: config.EVENTS_SERVICE_ADDR,
    historyAddr: config.HISTORY_SERVICE_ADDR,
    catalogueAddr: config.CATALOGUE_SERVICE_ADDR,
    deadlineMs: config.WRITE_DEADLINE_MS,
  });
  const catalogueNames = new GrpcCatalogueNames({
    catalogueAddr: config.CATALOGUE_SERVICE_ADDR,
    deadlineMs: config.CATALOGUE_READ_DEADLINE_MS,
  });
  const runner = new CycleRunner({
    sources,
    sink,
    logger,
    fairOddsBookmakers: config.FAIR_ODDS_BOOKMAKERS,
    observer: prometheusObserver,
    catalogueNames,
  });
  const loop = new CycleLoop(runner, config.INGEST_INTERVAL_MS, logger, clock);

  // Health says SERVING only once the backfill and the first cycle are written.
  const grpcServer = await startGrpcServer({ port: config.GRPC_PORT, services: [], logger });
  grpcServer.health.setStatus("", "NOT_SERVING");
  const metricsServer = await startMetricsServer(config.METRICS_PORT);
  const abort = new AbortController();
  lifecycle.onShutdown("cycles", async () => {
    abort.abort();
    await loop.stop();
  });
  lifecycle.onShutdown("grpc", () => grpcServer.shutdown(config.SHUTDOWN_TIMEOUT_MS));
  lifecycle.onShutdown("downstream", () => {
    sink.close();
    catalogueNames.close();
  });
  if (mongo) lifecycle.onShutdown("mongo", () => mongo.close());
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
  );
  lifecycle.listen();
  logger.info(
    { sources: sources.map((s) => ({ id: s.id, rank: s.rank })), intervalMs: config.INGEST_INTERVAL_MS },
    "ingest starting",
  );

  let firstCycleWritten = false;
  await retryUntilDone(logger, abort.signal, "backfill", async () => {
    // The first cycle never goes before the one events applied last (a lengthened interval floors further back).
    const lastApplied = await sink.lastAppliedCycle();
    loop.resumeAfter(lastApplied.observedAtMs);
    const firstCycleAt = loop.currentInstant();
    const report = await runBackfill(
      { sources, sink, runner, logger, fairOddsBookmakers: config.FAIR_ODDS_BOOKMAKERS },
      {
        lastApplied,
        from: backfillStart(firstCycleAt, config.BACKFILL_DAYS),
        now: firstCycleAt,
        firstCycleAt,
        fullDays: config.BACKFILL_FULL_DAYS,
        signal: abort.signal,
      },
    );
    firstCycleWritten = report.firstCycleWritten;
  });
  await retryUntilDone(logger, abort.signal, "first cycle", async () => {
    if (firstCycleWritten) return;
    const report = await loop.runOnce();
    if (report.pending.history + report.pending.events + report.pending.catalogue > 0) {
      throw new Error("first cycle left writes pending");
    }
  });
  if (abort.signal.aborted) return;
  grpcServer.health.setStatus("", "SERVING");
  logger.info("backfill and first cycle written; SERVING");
  loop.start();
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest failed to start: ${String(err)}\n`);
  process.exit(1);
});
