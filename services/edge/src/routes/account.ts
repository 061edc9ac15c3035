import type { usage } from "@odds/proto";
import { z } from "zod";
import type { UsageGateway } from "../gateways/usage";
import { quotasOf, type KeyGrant } from "../access/api-key";
import type { RoutePage } from "../http/route";
import type { RateLimiter, WindowCount } from "../ratelimit/rate-limiter";
import { RATE_WINDOWS, type RateWindow } from "../ratelimit/windows";

const nullableCount = z.number().int().nullable();
const rateLimitIntervalSchema = z.object({
  "max-requests": nullableCount.meta({ description: "null = unlimited" }),
  "current-requests": nullableCount.meta({ description: "requests so far in the interval; null for unused windows" }),
  "max-entities": nullableCount.meta({ description: "null = unlimited" }),
  "current-entities": nullableCount.meta({ description: "objects served so far; null for unused windows" }),
});

export const accountUsageSchema = z
  .object({
    keyID: z.string().meta({ description: "first 16 hex characters of the SHA-256 of the key" }),
    customerID: z.string().nullable(),
    email: z.string().nullable(),
    isActive: z.boolean(),
    tier: z.enum(["lite", "base", "internal"]),
    rateLimits: z.object(
      Object.fromEntries(RATE_WINDOWS.map((window) => [window, rateLimitIntervalSchema])) as Record<
        RateWindow,
        typeof rateLimitIntervalSchema
      >,
    ),
  })
  .meta({ id: "AccountUsage" });

export type AccountUsage = z.infer<typeof accountUsageSchema>;

/**
 * The calling key's record, limits and current counters. Windows the plan does not limit are
 * not counted and report null throughout.
 */
export function accountUsage(
  key: usage.KeyRecord,
  plan: usage.Plan,
  counts: Map<RateWindow, WindowCount>,
): AccountUsage {
  const rateLimits = Object.fromEntries(
    quotasOf(plan).map((quota) => {
      const count = counts.get(quota.window);
      return [
        quota.window,
        {
          "max-requests": quota.maxRequests,
          "current-requests": count ? count.requests : null,
          "max-entities": quota.maxEntities,
          "current-entities": count ? count.entities : null,
        },
      ];
    }),
  ) as AccountUsage["rateLimits"];
  return {
    keyID: key.keyId,
    customerID: key.customerId || null,
    email: key.email || null,
    isActive: key.isActive,
    tier: key.tier as AccountUsage["tier"],
    rateLimits,
  };
}

/** GET /account/usage: read fresh (not from the plan cache); NOT_FOUND when the key record is gone. */
export async function loadAccountUsage(
  grant: KeyGrant,
  usageService: UsageGateway,
  limiter: RateLimiter,
): Promise<RoutePage> {
  const resolved = await usageService.resolveKey(grant.keyHash);
  const key = resolved.key ?? grant.key;
  const plan = resolved.plan ?? grant.plan;
  const counts = await limiter.current(grant.keyID, quotasOf(plan));
  return { items: [Buffer.from(JSON.stringify(accountUsage(key, plan, counts)))], nextCursor: null };
}
