// Runs in a plain `node` process (not Jest): OpenTelemetry's require hooks only patch modules
// loaded through Node's own loader. Starts the SDK with an in-memory exporter BEFORE koa and
// grpc-js are loaded, serves one keyed request through the real edge app against an
// in-process usage gRPC service and real Redis, then prints the finished spans as JSON.
const { join } = require("node:path");
const { createHash } = require("node:crypto");
const { setTimeout: sleep } = require("node:timers/promises");
const { InMemorySpanExporter } = require("@opentelemetry/sdk-trace-base");

const repo = join(__dirname, "..", "..", "..");
const { startTracing } = require(join(repo, "services/platform/dist/tracing/sdk.js"));
const exporter = new InMemorySpanExporter();
const sdk = startTracing({ exporter, serviceName: "edge" });

const http = require("node:http");
const { createClient } = require("redis");
const platform = require("@odds/platform");
const { usage, events } = require("@odds/proto");
const { createEdgeApp } = require(join(repo, "services/edge/dist/app.js"));
const { KeyAccess } = require(join(repo, "services/edge/dist/access/api-key.js"));
const { UsageRecorder } = require(join(repo, "services/edge/dist/access/usage-recorder.js"));
const { UsageGateway } = require(join(repo, "services/edge/dist/gateways/usage.js"));
const { EventsGateway } = require(join(repo, "services/edge/dist/gateways/events.js"));
const { RateLimiter } = require(join(repo, "services/edge/dist/ratelimit/rate-limiter.js"));

const API_KEY = process.env.TRACE_API_KEY;

async function main() {
  const logger = platform.createLogger("trace-scenario", "silent");
  const keyHash = createHash("sha256").update(API_KEY).digest("hex");
  const resolved = {
    key: usage.KeyRecord.create({ keyId: keyHash.slice(0, 16), tier: "base", isActive: true }),
    plan: usage.Plan.create({
      tier: "base",
      allSports: true,
      allLeagues: true,
      allBookmakers: true,
      fairOdds: true,
      limits: [{ window: "per-minute", maxRequests: 100 }],
    }),
  };
  const grpcServer = await platform.startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        name: "odds.usage.v1.UsageService",
        definition: usage.UsageServiceService,
        implementation: {
          resolveKey: platform.unaryHandler(logger, async () => resolved),
          recordUsage: platform.unaryHandler(logger, async () => ({})),
          createKey: platform.unaryHandler(logger, async () => ({})),
          setKeyActive: platform.unaryHandler(logger, async () => ({})),
          listKeys: platform.unaryHandler(logger, async () => ({ keys: [] })),
        },
      },
    ],
  });
  const address = `127.0.0.1:${grpcServer.port}`;
  const usageClient = platform.createGrpcClient(usage.UsageServiceClient, address, {
    serviceName: "odds.usage.v1.UsageService",
    defaultDeadlineMs: 5000,
  });
  const eventsClient = platform.createGrpcClient(events.EventsServiceClient, address, {
    serviceName: "odds.events.v1.EventsService",
    defaultDeadlineMs: 5000,
  });
  const redis = createClient({ url: process.env.TEST_REDIS_URL, disableOfflineQueue: true });
  await redis.connect();
  const gateway = new UsageGateway(usageClient);
  const recorder = new UsageRecorder(gateway, logger, 3_600_000);
  const app = createEdgeApp({
    logger,
    retired: false,
    access: new KeyAccess(gateway, {
      freshMs: 5000,
      staleGrantMs: 5000,
      limits: { timeoutMs: 30_000, breakAfterFailures: 5, probeAfterMs: 1000 },
      logger,
    }),
    limiter: new RateLimiter(redis, { failMode: "open", logger }),
    recorder,
    usage: gateway,
    routes: [],
    health: {
      version: "2.0.0",
      startedAtMs: Date.now(),
      feedStatus: () => new EventsGateway(eventsClient).feedStatus(),
      rateLimiterReachable: () => true,
    },
  });
  const server = http.createServer(app.callback());
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.address().port;

  // Only the request's own spans are inspected; the test client itself is not traced.
  exporter.reset();
  const { context } = require("@opentelemetry/api");
  const { suppressTracing } = require("@opentelemetry/core");
  const status = await new Promise((resolve, reject) => {
    context.with(suppressTracing(context.active()), () =>
      http
        .get(`http://127.0.0.1:${port}/v2/account/usage?apiKey=${API_KEY}`, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        })
        .on("error", reject),
    );
  });

  // The HTTP server span ends just after the response; wait for it to be exported.
  for (
    let i = 0;
    i < 100 && !exporter.getFinishedSpans().some((s) => s.kind === 1 && s.attributes["http.request.method"]);
    i += 1
  ) {
    await sleep(20);
  }
  const spans = exporter.getFinishedSpans().map((span) => ({
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext ? span.parentSpanContext.spanId : span.parentSpanId,
    name: span.name,
    kind: span.kind,
    scope: span.instrumentationScope ? span.instrumentationScope.name : span.instrumentationLibrary.name,
    attributes: span.attributes,
  }));
  process.stdout.write(`${JSON.stringify({ status, spans })}\n`);

  server.close();
  usageClient.close();
  eventsClient.close();
  await redis.quit();
  await grpcServer.shutdown(500);
  if (sdk) await sdk.shutdown();
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
