import { z } from "zod";

/** The contract's Health and AccountUsage objects, answered by the edge itself. */

export const health = z
  .object({
    status: z.enum(["ok", "degraded"]),
    timestamp: z.iso.datetime(),
    version: z.string(),
    uptimeSeconds: z.number().int(),
    pipeline: z.enum(["healthy", "stale", "empty"]),
    rateLimiter: z.enum(["ok", "unavailable"]).meta({ description: "extension: whether Redis is reachable" }),
  })
  .meta({ id: "Health" });

/** The key tiers of the contract. */
export const TIERS = ["lite", "base", "pro", "internal"] as const;
export type Tier = (typeof TIERS)[number];

/** The rate-limit windows of the contract, each a fixed UTC period. */
export const RATE_WINDOWS = ["per-second", "per-minute", "per-hour", "per-day", "per-month"] as const;
export type RateWindow = (typeof RATE_WINDOWS)[number];

const nullableCount = z.number().int().nullable();
export const rateLimitInterval = z.object({
  "max-requests": nullableCount.meta({ description: "null = unlimited" }),
  "current-requests": nullableCount.meta({ description: "requests so far in the interval; null for unused windows" }),
  "max-entities": nullableCount.meta({ description: "null = unlimited" }),
  "current-entities": nullableCount.meta({ description: "objects served so far; null for unused windows" }),
});

export const accountUsage = z
  .object({
    keyID: z.string().meta({ description: "first 16 hex characters of the SHA-256 of the key" }),
    customerID: z.string().nullable(),
    email: z.string().nullable(),
    isActive: z.boolean(),
    tier: z.enum(TIERS),
    rateLimits: z.object(
      Object.fromEntries(RATE_WINDOWS.map((window) => [window, rateLimitInterval])) as Record<
        RateWindow,
        typeof rateLimitInterval
      >,
    ),
  })
  .meta({ id: "AccountUsage" });

export type Health = z.infer<typeof health>;
export type AccountUsage = z.infer<typeof accountUsage>;
