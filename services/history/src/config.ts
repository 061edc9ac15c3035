import { baseConfigSchema, env, historyConvertedLeagues } from "@odds/platform";
import { z } from "zod";
import { REVISION_TRUST_MS } from "./reader";
import { TICK_LAYOUTS } from "./tick-tier";

export const configSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50052),
  HISTORY_LIVE_MONGODB_URI: env.mongoUri(),
  HISTORY_ARCHIVE_MONGODB_URI: env.mongoUri(),
  /** Ticks older than this many days move from the live tier to the archive tier. */
  HISTORY_LIVE_RETENTION_DAYS: z.coerce.number().int().min(1).default(28),
  /** How often the in-process archiver runs; 0 leaves archiving to the CronJob (`node dist/archiver.js`). */
  ARCHIVE_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  /** Ticks moved per archiver batch. */
  ARCHIVE_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(2_000),
  /** How long a read waits for the archive tier before answering with the live part and a notice. */
  ARCHIVE_READ_TIMEOUT_MS: env.milliseconds(1_500),
  /** How long a read waits for the live tier before answering UNAVAILABLE (503 at the edge). */
  LIVE_READ_TIMEOUT_MS: env.milliseconds(3_000),
  /**
   * How long after listing a page's buckets a renewal of it is confirmed by the event's revision in each tier alone
   * (reader.ts, `REVISION_TRUST_MS`); 0 lists the buckets on every renewal.
   */
  HISTORY_REVISION_TRUST_MS: z.coerce.number().int().min(0).default(REVISION_TRUST_MS),
  /** per-event (FerretDB: one collection per event) or shared (MongoDB proper: one indexed collection). */
  HISTORY_TICK_LAYOUT: z.enum(TICK_LAYOUTS).default("per-event"),
  /**
   * V8's heap growing factor for this process, as `--heap-growing-percent` (0: V8's own). A cycle's calls make
   * short-lived objects fast, and V8's own factor let the heap grow to about three times what survived; at 50 the
   * first cycle after a start (every event's books rebuilt) peaked at about 215 MB instead of 295-310, for no CPU
   * measured (docs/performance.md "History's calls recorded event by event").
   */
  HISTORY_HEAP_GROWING_PERCENT: env.heapGrowingPercent(50),
  /** Leagues whose v1 history starts at the converted recordings (2025-12-22); the others start 2026-10-08. */
  HISTORY_CONVERTED_LEAGUES: historyConvertedLeagues(),
});

export type HistoryConfig = z.output<typeof configSchema>;
