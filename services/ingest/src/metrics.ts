import { Counter, Gauge, Histogram, metricsRegistry } from "@odds/platform";
import type { CycleObserver, WriteTarget } from "./cycle-runner";

export const cycleDuration = new Histogram({
  name: "ingest_cycle_duration_seconds",
  help: "Wall time of one ingest cycle: fetch, normalise, price and write",
  buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
  registers: [metricsRegistry],
});

export const cycleLag = new Gauge({
  name: "ingest_cycle_lag_seconds",
  help: "Seconds between a cycle's scheduled instant and the end of its writes (last cycle)",
  registers: [metricsRegistry],
});

const writeFailures = new Counter({
  name: "ingest_write_failures_total",
  help: "Downstream writes that failed after retries and were kept queued for the next cycle",
  labelNames: ["target"],
  registers: [metricsRegistry],
});

const pendingWrites = new Gauge({
  name: "ingest_pending_writes",
  help: "Writes queued for the next cycle, per target (history batches, events, catalogue)",
  labelNames: ["target"],
  registers: [metricsRegistry],
});

export const prometheusObserver: CycleObserver = {
  writeFailed: (target: WriteTarget) => writeFailures.inc({ target }),
  pending: (target: WriteTarget, count: number) => pendingWrites.set({ target }, count),
};
