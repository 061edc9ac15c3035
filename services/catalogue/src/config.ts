import { baseConfigSchema, env, loadConfigOrExit } from "@odds/platform";
import { type z } from "zod";

export const catalogueConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50053),
  CATALOGUE_MONGODB_URI: env.mongoUri(),
  /** An active event that no cycle has mentioned for this long is treated as dropped out. */
  CATALOGUE_EVENT_TTL_MS: env.milliseconds(30 * 60_000),
  /** How often a replica checks whether another replica applied a newer cycle. */
  CATALOGUE_REFRESH_MS: env.milliseconds(10_000),
});

export type CatalogueConfig = z.output<typeof catalogueConfigSchema>;

export function loadCatalogueConfig(): CatalogueConfig {
  return loadConfigOrExit(catalogueConfigSchema);
}
