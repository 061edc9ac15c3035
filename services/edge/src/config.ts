import { baseConfigSchema, env, MIN_CURSOR_SECRET_LENGTH } from "@odds/platform";
import { z } from "zod";

export const edgeConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(8080),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: env.milliseconds(65_000),
  EVENTS_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50051"),
  HISTORY_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50052"),
  CATALOGUE_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50053"),
  USAGE_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50054"),
  DOWNSTREAM_DEADLINE_MS: env.milliseconds(5_000),
  REDIS_URL: env.redisUrl().default("redis://127.0.0.1:6379"),
  /** open: serve without limits while Redis is unreachable; closed: answer 503 instead. */
  RATE_LIMIT_FAIL_MODE: z.enum(["open", "closed"]).default("open"),
  /** Deadline of one Redis call of the rate limiter; past it the limiter fails open or closed. */
  RATE_LIMIT_TIMEOUT_MS: env.milliseconds(1_000),
  /** Longest a response's entities wait for the key's next request (which carries them) before they are sent alone. */
  RATE_LIMIT_ENTITY_FLUSH_MS: env.milliseconds(200),
  PLAN_CACHE_TTL_MS: env.milliseconds(5_000),
  /** Deadline of one key lookup at the usage service. */
  KEY_RESOLVE_TIMEOUT_MS: env.milliseconds(1_000),
  /** How long a known key keeps its last good grant while the keys store cannot answer. */
  KEY_STALE_GRANT_MS: env.milliseconds(15 * 60_000),
  /** Consecutive failed calls after which a store is not called for STORE_PROBE_AFTER_MS. */
  STORE_BREAK_AFTER_FAILURES: z.coerce.number().int().positive().default(5),
  STORE_PROBE_AFTER_MS: env.milliseconds(2_000),
  USAGE_FLUSH_INTERVAL_MS: env.milliseconds(1_000),
  /** Memory bound of the edge's answer cache (bodies and their gzip/brotli encodings); 0 turns it off. */
  ANSWER_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /** Longest a cached answer is served, whatever the feed version (time-relative filters, history lag). */
  ANSWER_CACHE_MAX_AGE_MS: env.milliseconds(1_000),
  /** A hit on an answer with less than this left of its max age reloads it in the background; 0 turns that off. */
  ANSWER_CACHE_REFRESH_AHEAD_MS: z.coerce.number().int().min(0).default(500),
  /** HMAC secret of paging cursors. Required: no default, so no deployment signs with a known secret. */
  CURSOR_SECRET: z
    .string({ error: `is required (at least ${MIN_CURSOR_SECRET_LENGTH} characters; the local launcher sets one)` })
    .min(MIN_CURSOR_SECRET_LENGTH, { error: `needs at least ${MIN_CURSOR_SECRET_LENGTH} characters` }),
  /** Earlier cursor secrets, comma-separated, still accepted while a rotation settles (cursors are sealed with CURSOR_SECRET). */
  CURSOR_SECRETS_PREVIOUS: env
    .list()
    .pipe(
      z.array(
        z
          .string()
          .min(MIN_CURSOR_SECRET_LENGTH, { error: `each needs at least ${MIN_CURSOR_SECRET_LENGTH} characters` }),
      ),
    ),
  /** v1 odds stream: a heartbeat after this long without a message (the contract: at most every 15 s). */
  STREAM_HEARTBEAT_MS: env.milliseconds(15_000).pipe(z.number().max(15_000, { error: "at most 15000 (the contract)" })),
  /** v1 odds stream: closed with code 4000 after this long (the contract: 1 hour). */
  STREAM_LIFETIME_MS: env.milliseconds(3_600_000).pipe(z.number().max(3_600_000, { error: "at most 3600000" })),
  /** v1 odds stream: closed with code 4408 when no subscription arrived within this. */
  STREAM_SUBSCRIBE_TIMEOUT_MS: env.milliseconds(10_000),
  /** v1 odds stream: how soon a cycle whose odds could not be read for the open streams is read again. */
  STREAM_RETRY_MS: env.milliseconds(250),
  /** v1 odds stream: an open stream's slot (per key, in Redis) lapses this long after its edge stopped renewing it. */
  STREAM_LEASE_MS: env.milliseconds(45_000),
  /** After v2's retirement every v2 route answers 410 Gone. */
  V2_RETIRED: env.flag(false),
});

export type EdgeConfig = z.output<typeof edgeConfigSchema>;
