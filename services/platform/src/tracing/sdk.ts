import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { KoaInstrumentation } from "@opentelemetry/instrumentation-koa";
import { MongoDBInstrumentation } from "@opentelemetry/instrumentation-mongodb";
import { RedisInstrumentation } from "@opentelemetry/instrumentation-redis";
import type { SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { redactApiKey } from "../logger";

/** The instrumentations every service loads: HTTP, Koa, gRPC, MongoDB and Redis. */
export function instrumentations() {
  return [
    new HttpInstrumentation({
      // Health probes would otherwise make one trace each.
      ignoreIncomingRequestHook: (req) => req.url === "/metrics",
      // API keys may arrive as ?apiKey=; url.query is rewritten with the name matched case-insensitively.
      startIncomingSpanHook: (req) => {
        const query = req.url?.split("?")[1];
        return query ? { "url.query": redactApiKey(`?${query}`).slice(1) } : {};
      },
    }),
    new KoaInstrumentation(),
    new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    new RedisInstrumentation(),
  ];
}

/**
 * Starts the OpenTelemetry SDK. With OTEL_EXPORTER_OTLP_ENDPOINT set spans go to that
 * collector over OTLP/gRPC; without it tracing is off unless an exporter is passed
 * (tests pass an in-memory one). W3C trace context is the SDK's default propagator.
 */
export function startTracing(options: { serviceName?: string; exporter?: SpanExporter } = {}): NodeSDK | undefined {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!options.exporter && !endpoint) return undefined;
  const spanProcessors: SpanProcessor[] = options.exporter ? [new SimpleSpanProcessor(options.exporter)] : [];
  const sdk = new NodeSDK({
    serviceName: options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "odds-service",
    ...(options.exporter ? { spanProcessors } : { traceExporter: new OTLPTraceExporter({ url: endpoint }) }),
    instrumentations: instrumentations(),
  });
  sdk.start();
  process.once("beforeExit", () => void sdk.shutdown());
  return sdk;
}
