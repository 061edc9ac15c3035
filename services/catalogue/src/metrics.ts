import { Counter, Histogram, metricsRegistry } from "@odds/platform";

export const applyDuration = new Histogram({
  name: "catalogue_apply_duration_seconds",
  help: "Time to diff, persist and commit one ApplyCatalogue cycle",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const appliedRecords = new Counter({
  name: "catalogue_applied_records_total",
  help: "Records an ApplyCatalogue cycle changed, by kind (a replayed cycle adds nothing)",
  labelNames: ["kind"],
  registers: [metricsRegistry],
});

export const reloads = new Counter({
  name: "catalogue_reloads_total",
  help: "Full reloads of the in-memory catalogue after another replica wrote",
  registers: [metricsRegistry],
});
