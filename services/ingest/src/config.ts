import { baseConfigSchema, env } from "@odds/platform";
import { pricing } from "@odds/proto";
import { z } from "zod";

const csv = env.list();

/** Every variable ingest reads; documented in the README section "Ingest and the simulated feed". */
export const ingestConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50055),
  EVENTS_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50051"),
  HISTORY_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50052"),
  CATALOGUE_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50053"),
  /** How often a cycle runs. */
  INGEST_INTERVAL_MS: env.milliseconds(120_000),
  /** Deadline of one write RPC (backfill batches are large). */
  WRITE_DEADLINE_MS: env.milliseconds(300_000),
  /** Deadline of one catalogue read (teams and players that named sources are matched against). */
  CATALOGUE_READ_DEADLINE_MS: env.milliseconds(10_000),
  /** Ingest's own store: what real sources spent of their plans (needed by sources with a budget). */
  INGEST_MONGODB_URI: env.mongoUri().optional(),
  /** YAML list of upstream sources with their ranks; defaults to the committed sources.yaml. */
  SOURCES_FILE: z.string().min(1).optional(),
  /** Seed of the simulated feed: the same seed and clock give the same feed. */
  SIM_SEED: z.string().min(1).default("odds-v2"),
  /**
   * Ingest's clock reads this instant when the process starts and runs on from it (unset: the wall
   * clock). With the same seed, the same start gives the same cycles and data: reproducible runs.
   */
  INGEST_CLOCK_START: z.iso.datetime({ offset: true }).optional(),
  /** Leagues whose simulated source has gone quiet (no write for SIM_QUIET_MINUTES). */
  SIM_QUIET_LEAGUES: csv,
  SIM_QUIET_MINUTES: z.coerce.number().int().positive().default(60),
  /** How many days ahead the simulated feed lists events (the benchmark dataset lists weeks). */
  SIM_HORIZON_DAYS: z.coerce.number().positive().max(120).default(7),
  /** Opens every simulated market at least this many days before kickoff; unset, each opens as books do. */
  SIM_MARKETS_OPEN_DAYS: z.coerce.number().positive().max(120).optional(),
  /** Backfill starts this many days ago; unset means from 2026-08-14 (capture start). */
  BACKFILL_DAYS: z.coerce.number().int().min(0).optional(),
  /** Events of the last this many days are backfilled with every market, observed ~20 times each (the benchmark's deep history). */
  BACKFILL_FULL_DAYS: z.coerce.number().min(0).max(120).optional(),
  /** Bookmakers whose prices are de-vigged into fair odds. */
  FAIR_ODDS_BOOKMAKERS: csv.transform((list) => (list.length > 0 ? list : [...pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS])),
});

export type IngestConfig = z.output<typeof ingestConfigSchema>;
