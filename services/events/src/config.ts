import { baseConfigSchema, env } from "@odds/platform";
import { pricing } from "@odds/proto";
import type { z } from "zod";

/** Environment of the events service; every variable is documented in the README events section. */
export const eventsConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50051),
  EVENTS_MONGODB_URI: env.mongoUri(),
  /** How often a replica checks the cycle-version document for writes made through another replica. */
  EVENTS_REFRESH_INTERVAL_MS: env.milliseconds(1_500),
  /** Sharp and exchange bookmakers of fair prices, as ingest's: re-priced for plans that show only some bookmakers. */
  FAIR_ODDS_BOOKMAKERS: env
    .list()
    .transform((list) => (list.length > 0 ? list : [...pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS])),
});

export type EventsConfig = z.output<typeof eventsConfigSchema>;
