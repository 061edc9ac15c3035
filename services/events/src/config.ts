import { baseConfigSchema, env } from "@odds/platform";
import type { z } from "zod";

/** Environment of the events service; every variable is documented in the README events section. */
export const eventsConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50051),
  EVENTS_MONGODB_URI: env.mongoUri(),
  /** How often a replica checks the cycle-version document for writes made through another replica. */
  EVENTS_REFRESH_INTERVAL_MS: env.milliseconds(1_500),
});

export type EventsConfig = z.output<typeof eventsConfigSchema>;
