import { baseConfigSchema, env, historyConvertedLeagues, loadConfigOrExit } from "@odds/platform";
import { type z } from "zod";

export const catalogueConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50053),
  CATALOGUE_MONGODB_URI: env.mongoUri(),
  /** An active event that no cycle has mentioned for this long is treated as dropped out. */
  CATALOGUE_EVENT_TTL_MS: env.milliseconds(30 * 60_000),
  /** How often a replica checks whether another replica applied a newer cycle. */
  CATALOGUE_REFRESH_MS: env.milliseconds(10_000),
  /** Leagues whose v1 history starts at the converted recordings (2025-12-22); the others start 2026-10-08. */
  HISTORY_CONVERTED_LEAGUES: historyConvertedLeagues(),
});

export type CatalogueConfig = z.output<typeof catalogueConfigSchema>;

export function loadCatalogueConfig(): CatalogueConfig {
  return loadConfigOrExit(catalogueConfigSchema);
}
