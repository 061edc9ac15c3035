// The SDK, its exporter and the instrumentations are loaded only when tracing is on: together they
// took seconds to load on a busy machine, a cost every service paid at start with tracing off.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as SdkNode from "@opentelemetry/sdk-node";
import type * as OtlpGrpc from "@opentelemetry/exporter-trace-otlp-grpc";
import type * as OtlpHttp from "@opentelemetry/exporter-trace-otlp-http";
import type * as GrpcModule from "@opentelemetry/instrumentation-grpc";
import type * as HttpModule from "@opentelemetry/instrumentation-http";
import type * as KoaModule from "@opentelemetry/instrumentation-koa";
import type * as MongoModule from "@opentelemetry/instrumentation-mongodb";
import type * as RedisModule from "@opentelemetry/instrumentation-redis";
import type * as TraceBase from "@opentelemetry/sdk-trace-base";
import type { SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { redactApiKey } from "../logger";

/** The instrumentations every service loads: HTTP, Koa, gRPC, MongoDB and Redis. */
export function instrumentations() {
  const { HttpInstrumentation } = require("@opentelemetry/instrumentation-http") as typeof HttpModule;
  const { KoaInstrumentation, KoaLayerType } = require("@opentelemetry/instrumentation-koa") as typeof KoaModule;
  const { GrpcInstrumentation } = require("@opentelemetry/instrumentation-grpc") as typeof GrpcModule;
  const { MongoDBInstrumentation } = require("@opentelemetry/instrumentation-mongodb") as typeof MongoModule;
  const { RedisInstrumentation } = require("@opentelemetry/instrumentation-redis") as typeof RedisModule;
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
    // Router layers only (one per route, named by its pattern): a span per middleware layer
    // (logging, error boundary, compression, dispatch) tells nothing the HTTP span does not,
    // and on a cached answer those spans cost the edge more CPU than the answer itself.
    new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    new RedisInstrumentation(),
  ];
}

/**
 * The OTLP exporter for OTEL_EXPORTER_OTLP_ENDPOINT: OTLP/gRPC, or OTLP/HTTP with JSON bodies when
 * OTEL_EXPORTER_OTLP_PROTOCOL (or its _TRACES_ variant) says `http/json`, as the OpenTelemetry spec names it.
 */
function otlpExporter(endpoint: string): SpanExporter {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === "http/json") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http") as typeof OtlpHttp;
    return new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` });
  }
  const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-grpc") as typeof OtlpGrpc;
  return new OTLPTraceExporter({ url: endpoint });
}

/**
 * Starts the OpenTelemetry SDK. With OTEL_EXPORTER_OTLP_ENDPOINT set spans go to that
 * collector (see `otlpExporter`); without it tracing is off unless an exporter is passed
 * (tests pass an in-memory one). W3C trace context is the SDK's default propagator.
 */
export function startTracing(
  options: { serviceName?: string; exporter?: SpanExporter } = {},
): SdkNode.NodeSDK | undefined {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!options.exporter && !endpoint) return undefined;
  const { NodeSDK } = require("@opentelemetry/sdk-node") as typeof SdkNode;
  const { SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base") as typeof TraceBase;
  const spanProcessors: SpanProcessor[] = options.exporter ? [new SimpleSpanProcessor(options.exporter)] : [];
  const sdk = new NodeSDK({
    serviceName: options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "odds-service",
    ...(options.exporter ? { spanProcessors } : { traceExporter: otlpExporter(endpoint as string) }),
    instrumentations: instrumentations(),
  });
  sdk.start();
  process.once("beforeExit", () => void sdk.shutdown());
  return sdk;
}
