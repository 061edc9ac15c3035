import {
  createLogger,
  createRedisClient,
  CursorSeal,
  drainHttpServer,
  Lifecycle,
  loadConfigOrExit,
  startMetricsServer,
} from "@odds/platform";
import { KeyAccess } from "./access/api-key";
import { UsageRecorder } from "./access/usage-recorder";
import { createEdgeApp } from "./app";
import { loadContentTags } from "./cache/content-tag";
import { FeedVersion } from "./cache/feed-version";
import { ResponseCache } from "./cache/response-cache";
import { edgeConfigSchema } from "./config";
import { answerUnparseableRequests } from "./http/oversized";
import { closeDownstreamClients, createDownstreamClients } from "./gateways/clients";
import { EventsGateway } from "./gateways/events";
import { HistoryGateway } from "./gateways/history";
import { UsageGateway } from "./gateways/usage";
import { RateLimiter } from "./ratelimit/rate-limiter";
import { dataRoutes, readBounds } from "./routes";
import { v1Routes } from "./v1/routes";
import { OddsFeed } from "./v1/stream/odds-feed";
import { attachOddsStream } from "./v1/stream/server";
import { StreamLeases } from "./v1/stream/stream-leases";
import { warmUp } from "./system/warm-up";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require("../package.json") as { version: string };
/** How long a stopping edge keeps answering (with Connection: close) before it closes; within SHUTDOWN_TIMEOUT_MS. */
const HTTP_DRAIN_MS = 3_000;

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
  const usage = new UsageGateway(clients.usage);
  const eventsGateway = new EventsGateway(clients.events);

  // Commands fail at once while Redis is down (no offline queue), so the limiter can fail open or closed.
  const redis = createRedisClient(config.REDIS_URL);
  const breaker = { breakAfterFailures: config.STORE_BREAK_AFTER_FAILURES, probeAfterMs: config.STORE_PROBE_AFTER_MS };
  const limiter = new RateLimiter(redis, {
    failMode: config.RATE_LIMIT_FAIL_MODE,
    logger,
    limits: { timeoutMs: config.RATE_LIMIT_TIMEOUT_MS, ...breaker },
    entityFlushMs: config.RATE_LIMIT_ENTITY_FLUSH_MS,
  });
  redis.connect().catch(() => undefined);
  limiter.start();

  const recorder = new UsageRecorder(usage, logger, config.USAGE_FLUSH_INTERVAL_MS);
  recorder.start();

  // One watch of the feed's status: what answers are cached under, and what wakes the odds streams.
  const feedVersion = new FeedVersion(() => eventsGateway.watchFeedStatus(), logger);
  feedVersion.start();
  const answers =
    config.ANSWER_CACHE_MAX_BYTES > 0
      ? {
          cache: new ResponseCache({
            maxBytes: config.ANSWER_CACHE_MAX_BYTES,
            maxAgeMs: config.ANSWER_CACHE_MAX_AGE_MS,
            refreshAheadMs: config.ANSWER_CACHE_REFRESH_AHEAD_MS,
          }),
          version: () => feedVersion.current(),
        }
      : undefined;

  const access = new KeyAccess(usage, {
    freshMs: config.PLAN_CACHE_TTL_MS,
    staleGrantMs: config.KEY_STALE_GRANT_MS,
    limits: { timeoutMs: config.KEY_RESOLVE_TIMEOUT_MS, ...breaker },
    logger,
  });
  // Heavy pages are bounded per edge, v2 and v1 together; one takes at most the downstream deadline.
  const bounds = readBounds(config.DOWNSTREAM_DEADLINE_MS);
  await loadContentTags();
  const app = createEdgeApp({
    logger,
    retired: config.V2_RETIRED,
    access,
    limiter,
    recorder,
    usage,
    cursors: new CursorSeal(config.CURSOR_SECRET, config.CURSOR_SECRETS_PREVIOUS),
    routes: dataRoutes(clients, bounds),
    v1Routes: v1Routes(clients, bounds),
    historyFiles: new HistoryGateway(clients.history),
    answers,
    health: {
      version,
      startedAtMs: Date.now(),
      feedStatus: () => eventsGateway.feedStatus(),
      rateLimiterReachable: () => limiter.isReachable(),
    },
  });
  // Listens (and so passes its readiness probe) only once its downstream is connected, or not in time.
  await warmUp({ channels: { ...clients }, redis, limiter }, logger);
  const server = app.listen(config.HTTP_PORT, () => logger.info({ port: config.HTTP_PORT }, "edge listening"));
  // Idle keep-alive connections outlive the front proxy's and clients' idle timeouts, so a reused
  // connection is never closed by the edge just as a request is sent on it.
  answerUnparseableRequests(server);
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
  const streams = attachOddsStream(server, {
    access,
    limiter,
    recorder,
    leases: new StreamLeases(redis, config.STREAM_LEASE_MS, { timeoutMs: config.RATE_LIMIT_TIMEOUT_MS, ...breaker }),
    feed: new OddsFeed(eventsGateway, feedVersion, config.STREAM_RETRY_MS, logger),
    logger,
    settings: {
      heartbeatMs: config.STREAM_HEARTBEAT_MS,
      lifetimeMs: config.STREAM_LIFETIME_MS,
      subscribeTimeoutMs: config.STREAM_SUBSCRIBE_TIMEOUT_MS,
    },
  });
  const metrics = await startMetricsServer(config.METRICS_PORT);

  // Open odds streams are told to reconnect (close 1001) before the HTTP server drains.
  lifecycle.onShutdown("odds streams", () => streams.closeAll());
  // Busy keep-alive clients are told to reconnect (to another pod) before the server closes.
  lifecycle.onShutdown("http", () => drainHttpServer(server, HTTP_DRAIN_MS));
  lifecycle.onShutdown(
    "metrics",
    () => new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve())),
  );
  lifecycle.onShutdown("feed version", () => feedVersion.stop());
  lifecycle.onShutdown("usage recorder", () => recorder.stop());
  lifecycle.onShutdown("rate limiter", () => limiter.stop());
  lifecycle.onShutdown("redis", async () => {
    if (redis.isOpen) await redis.quit();
  });
  lifecycle.onShutdown("grpc clients", () => closeDownstreamClients(clients));
  lifecycle.listen();
}

main().catch((err: unknown) => {
  process.stderr.write(`edge failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
