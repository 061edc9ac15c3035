import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { testRedisUrl } from "@odds/local";

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
}

// SpanKind: SERVER = 1, CLIENT = 2.
describe("tracing across the edge and a gRPC service", () => {
  const apiKey = `odds_base_${randomBytes(16).toString("hex")}`;
  // The scenario runs the built edge (dist) in a plain node process, where OpenTelemetry's hooks apply.
  const run = spawnSync(process.execPath, [join(__dirname, "trace-scenario.cjs")], {
    env: { ...process.env, TEST_REDIS_URL: testRedisUrl(), TRACE_API_KEY: apiKey, OTEL_EXPORTER_OTLP_ENDPOINT: "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const output = run.status === 0 ? (JSON.parse(run.stdout) as { status: number; spans: ExportedSpan[] }) : undefined;

  it("serves the request in the scenario", () => {
    expect(run.stderr).toBe("");
    expect(output?.status).toBe(200);
  });

  it("produces ONE trace holding the edge's HTTP server span and the usage service's gRPC server span", () => {
    const spans = output?.spans ?? [];
    const httpServer = spans.find((span) => span.kind === 1 && span.scope.includes("instrumentation-http"));
    const grpcServer = spans.find((span) => span.kind === 1 && span.scope.includes("instrumentation-grpc"));
    const grpcClient = spans.find((span) => span.kind === 2 && span.scope.includes("instrumentation-grpc"));
    expect(httpServer).toBeDefined();
    expect(grpcServer?.name).toContain("odds.usage.v1.UsageService/ResolveKey");
    expect(grpcClient).toBeDefined();
    // The Redis client's start-up connection is not part of the request.
    const requestSpans = spans.filter((span) => span.name !== "redis-connect");
    expect(requestSpans.length).toBeGreaterThan(5);
    expect(new Set(requestSpans.map((span) => span.traceId))).toEqual(new Set([httpServer?.traceId]));
    expect(grpcServer?.parentSpanId).toBe(grpcClient?.spanId);
    expect(httpServer?.parentSpanId).toBeUndefined();
  });

  it("includes the Redis rate-limit script in the same trace", () => {
    const spans = output?.spans ?? [];
    expect(spans.some((span) => span.scope.includes("redis"))).toBe(true);
  });

  it("traces the route as ONE Koa span under the HTTP span, with the key and rate-limit calls inside it", () => {
    const spans = output?.spans ?? [];
    const httpServer = spans.find((span) => span.kind === 1 && span.scope.includes("instrumentation-http"));
    const koa = spans.filter((span) => span.scope.includes("instrumentation-koa"));
    // Middleware layers (logging, error boundary, compression, dispatch) make no span of their own.
    expect(koa.map((span) => [span.name, span.attributes["koa.type"]])).toEqual([
      ["router - /v2/account/usage", "router"],
    ]);
    expect(koa[0]?.parentSpanId).toBe(httpServer?.spanId);
    expect(httpServer?.name).toBe("GET /v2/account/usage");
    const rateLimit = spans.find((span) => span.name === "redis-EVALSHA" || span.name === "redis-EVAL");
    const keyLookup = spans.find((span) => span.kind === 2 && span.name.endsWith("UsageService/ResolveKey"));
    expect(rateLimit?.parentSpanId).toBe(koa[0]?.spanId);
    expect(keyLookup?.parentSpanId).toBe(koa[0]?.spanId);
  });

  it("never records the API key in any span attribute", () => {
    expect(JSON.stringify(output?.spans ?? [])).not.toContain(apiKey);
    const httpServer = output?.spans.find((span) => span.kind === 1 && span.scope.includes("instrumentation-http"));
    expect(String(httpServer?.attributes["url.query"])).toContain("REDACTED");
  });
});
