import { Counter, metricsRegistry } from "@odds/platform";

/** A key changed while its revision could not be written: edges see that change only when their grant cache expires. */
export const keyRevisionWriteFailures = new Counter({
  name: "usage_key_revision_write_failures_total",
  help: "Key changes whose revision could not be written to Redis",
  registers: [metricsRegistry],
});
