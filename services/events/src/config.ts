import { baseConfigSchema, env } from "@odds/platform";
import { pricing } from "@odds/proto";
import type { z } from "zod";

/** Environment of the events service; every variable is documented in the README events section. */
export const eventsConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50051),
  EVENTS_MONGODB_URI: env.mongoUri(),
  /** How often a replica checks the cycle-version document for writes made through another replica. */
  EVENTS_REFRESH_INTERVAL_MS: env.milliseconds(1_500),
  /**
   * V8's heap growing factor for this process, as `--heap-growing-percent` (0: V8's own). The serving
   * thread allocates little but its calls' buffers, so V8 kept its heap limit tight and ran a full
   * collection every few hundred ms for nothing; letting each limit grow by this much ends that.
   */
  EVENTS_HEAP_GROWING_PERCENT: env.heapGrowingPercent(100),
  /** Sharp and exchange bookmakers of fair prices, as ingest's: re-priced for plans that show only some bookmakers. */
  FAIR_ODDS_BOOKMAKERS: env
    .list()
    .transform((list) => (list.length > 0 ? list : [...pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS])),
});

export type EventsConfig = z.output<typeof eventsConfigSchema>;
