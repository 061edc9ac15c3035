import { Counter, Gauge, Histogram, metricsRegistry } from "@odds/platform";

export const readModelEvents = new Gauge({
  name: "odds_events_read_model_events",
  help: "Events held in memory, ready to serve",
  registers: [metricsRegistry],
});

export const applyCycleDuration = new Histogram({
  name: "odds_events_apply_cycle_duration_seconds",
  help: "Time to apply one ingest cycle (hash, store, rebuild the read model)",
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const appliedEvents = new Counter({
  name: "odds_events_applied_events_total",
  help: "Events received from ingest, by whether their content changed",
  labelNames: ["result"] as const,
  registers: [metricsRegistry],
});

export const readModelRefreshes = new Counter({
  name: "odds_events_read_model_refreshes_total",
  help: "Reloads of events written through another replica",
  registers: [metricsRegistry],
});

export const pageItems = new Counter({
  name: "odds_events_page_items_total",
  help: "Events on the v2 pages answered, by whether they were rendered or left out as held by the caller",
  labelNames: ["item"] as const,
  registers: [metricsRegistry],
});
