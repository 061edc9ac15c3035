import type { ServiceName } from "./stack";

/**
 * V8 flags a service process runs with, before its entry point: here, and in the chart as the service's
 * `nodeFlags` (charts/odds-read-api/values.yaml; test/deploy/chart.test.ts holds them equal). The launcher's
 * `nodeFlags` option (the benchmark's BENCH_NODE_FLAGS_<SERVICE>) comes after them, so a later flag wins.
 *
 * The edge runs without V8's memory reducer. The reducer starts full collections when the JavaScript heap looks
 * idle, to give memory back. The edge's heap stays small and grows slowly (about 31 MB), while each large answer
 * brings hundreds of kilobytes of Buffers, which live outside it: under steady load of big pages the reducer took
 * the edge for idle and started a full collection every 150-250 ms. Without it, V8 still collects when the heap
 * reaches its limit and when Buffers outgrow theirs ("external memory pressure"). On cold pages of 100 events and
 * of history, the edge's CPU an answer fell by a third or more; the cost is memory: an edge gone quiet keeps its
 * last burst's garbage, 50-70 MB more than with the reducer (docs/performance.md "The edge without V8's memory
 * reducer").
 *
 * History runs with semi-spaces of 32 MB, twice V8's own 16. A cold page makes a few short-lived objects for each
 * tick it reads (the parsed row, the tick, its text): the collector was a fifth of the service's busy time on cold
 * pages. With a young generation twice the size, V8 scavenges less often and each page's objects are more often dead
 * by then. Paired in one stack on cold history pages at 16 connections: history's CPU per byte served 17 % less (less
 * in 12 of 13 pairs), its scavenges' time per byte halved, for 35 MB more at its peak (docs/performance.md
 * "History's young generation").
 */
export const SERVICE_NODE_FLAGS: Readonly<Partial<Record<ServiceName, readonly string[]>>> = {
  edge: ["--no-memory-reducer"],
  history: ["--max-semi-space-size=32"],
};

/** The flags a service is started with: its own (`SERVICE_NODE_FLAGS`), then `extra`, so a later flag wins. */
export function nodeFlagsFor(name: ServiceName, extra: readonly string[] = []): string[] {
  return [...(SERVICE_NODE_FLAGS[name] ?? []), ...extra];
}
