import { baseConfigSchema, env, historyConvertedLeagues, loadConfigOrExit } from "@odds/platform";
import { z } from "zod";
import { DEFAULT_MARKET_VIEW_BYTES } from "./domain/market-views";

export const catalogueConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50053),
  CATALOGUE_MONGODB_URI: env.mongoUri(),
  /** An active event that no cycle has mentioned for this long is treated as dropped out. */
  CATALOGUE_EVENT_TTL_MS: env.milliseconds(30 * 60_000),
  /** How often a replica checks whether another replica applied a newer cycle. */
  CATALOGUE_REFRESH_MS: env.milliseconds(10_000),
  /** Memory bound of the markets kept rendered per plan view until the catalogue changes. */
  CATALOGUE_MARKET_VIEW_BYTES: z.coerce.number().int().positive().default(DEFAULT_MARKET_VIEW_BYTES),
  /** Leagues whose v1 history starts at the converted recordings (2025-12-22); the others start 2026-10-08. */
  HISTORY_CONVERTED_LEAGUES: historyConvertedLeagues(),
});

export type CatalogueConfig = z.output<typeof catalogueConfigSchema>;

export function loadCatalogueConfig(): CatalogueConfig {
  return loadConfigOrExit(catalogueConfigSchema);
}
