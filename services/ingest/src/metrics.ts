import { Counter, Gauge, Histogram, metricsRegistry, type Logger } from "@odds/platform";
import type { CycleObserver, WriteTarget } from "./cycle-runner";
import type { UpstreamWiring } from "./sources/sources-file";

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

const upstreamEntries = new Counter({
  name: "ingest_upstream_entries_total",
  help: "Upstream entries a source adapter left out (unknown_market, malformed_price, ...) or left unmatched (unmatched_team, ...), and requests failed or skipped for budget",
  labelNames: ["source", "reason"],
  registers: [metricsRegistry],
});

export const prometheusObserver: CycleObserver = {
  writeFailed: (target: WriteTarget) => writeFailures.inc({ target }),
  pending: (target: WriteTarget, count: number) => pendingWrites.set({ target }, count),
  upstreamTally: (source: string, tally: Record<string, number>) => {
    for (const [reason, count] of Object.entries(tally)) upstreamEntries.inc({ source, reason }, count);
  },
};

const upstreamAnswers = new Counter({
  name: "ingest_upstream_answers_total",
  help: "Answers from real upstream feeds, per source and HTTP status (retries included)",
  labelNames: ["source", "status"],
  registers: [metricsRegistry],
});

const upstreamCreditsRemaining = new Gauge({
  name: "ingest_upstream_credits_remaining",
  help: "Credits the upstream plan has left, as its x-requests-remaining header last said",
  labelNames: ["source"],
  registers: [metricsRegistry],
});

/** The real sources' keys from the environment; their answers, retries and failures to metrics and logs. */
export function upstreamWiring(logger: Logger): UpstreamWiring {
  return {
    env: process.env,
    onAnswer: (source, status, headers) => {
      upstreamAnswers.inc({ source, status: String(status) });
      const remaining = Number(headers.get("x-requests-remaining"));
      if (headers.has("x-requests-remaining") && Number.isFinite(remaining))
        upstreamCreditsRemaining.set({ source }, remaining);
    },
    onRetry: (sourceID, reason, delayMs, attempt) =>
      logger.warn({ sourceID, reason, delayMs, attempt }, "upstream request retried"),
    onFetchError: (sourceID, what, err) =>
      logger.error({ err, sourceID, what }, "upstream fetch failed; keeping the last good snapshot"),
  };
}
