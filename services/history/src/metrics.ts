import { Counter, Histogram, metricsRegistry } from "@odds/platform";

export const tierReadSeconds = new Histogram({
  name: "history_tier_read_seconds",
  help: "Time to read one request's ticks from a history tier",
  labelNames: ["tier", "outcome"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const ticksRecorded = new Counter({
  name: "history_ticks_recorded_total",
  help: "Ticks recorded from observed quotes, by tick kind",
  labelNames: ["kind"] as const,
  registers: [metricsRegistry],
});

export const ticksArchived = new Counter({
  name: "history_archiver_moved_total",
  help: "Ticks moved from the live tier to the archive tier",
  registers: [metricsRegistry],
});

export const pageRenewals = new Counter({
  name: "history_page_renewals_total",
  help: "Renewals of a tagged page, by outcome: confirmed by revisions, confirmed by a listing, or changed",
  labelNames: ["outcome"] as const,
  registers: [metricsRegistry],
});
