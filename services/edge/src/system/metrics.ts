import { Counter, Gauge, Histogram, metricsRegistry } from "@odds/platform";

/** Edge metrics: request rate and latency by route and status, errors, and rate-limit rejections. */
export const edgeMetrics = {
  requests: new Counter({
    name: "edge_http_requests_total",
    help: "HTTP requests answered by the edge",
    labelNames: ["route", "status"] as const,
    registers: [metricsRegistry],
  }),
  duration: new Histogram({
    name: "edge_http_request_duration_seconds",
    help: "Time to answer an HTTP request",
    labelNames: ["route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metricsRegistry],
  }),
  errors: new Counter({
    name: "edge_http_errors_total",
    help: "HTTP requests answered with a 5xx status",
    labelNames: ["route", "status"] as const,
    registers: [metricsRegistry],
  }),
  rateLimitRejections: new Counter({
    name: "edge_rate_limit_rejections_total",
    help: "Requests refused with 429 Rate limit exceeded",
    labelNames: ["tier", "window"] as const,
    registers: [metricsRegistry],
  }),
  answerLoads: new Counter({
    name: "edge_answer_loads_total",
    help: "Loads of cached answers: a miss, or a renewal whose source said unchanged, rendered the same bytes, or changed",
    labelNames: ["outcome"] as const,
    registers: [metricsRegistry],
  }),
  answerRenderings: new Counter({
    name: "edge_answer_renderings_total",
    help: "Answers rendered: whole (one block), or shared (in parts, holding the unchanged items of the answer they renew once)",
    labelNames: ["kind"] as const,
    registers: [metricsRegistry],
  }),
  answerGzipSegments: new Counter({
    name: "edge_answer_gzip_segments_total",
    help: "Items of pages gzipped in segments: made (compressed), or reused from an answer that shares the item",
    labelNames: ["kind"] as const,
    registers: [metricsRegistry],
  }),
  answerCacheBytes: new Gauge({
    name: "edge_answer_cache_bytes",
    help: "Memory the answer cache counts for its kept answers (bodies, encodings, objects, keys), against ANSWER_CACHE_MAX_BYTES",
    registers: [metricsRegistry],
  }),
  staleKeyGrants: new Counter({
    name: "edge_stale_key_grants_total",
    help: "Requests served from a key's last good grant while the keys store could not answer",
    registers: [metricsRegistry],
  }),
};
