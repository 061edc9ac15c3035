import type { objects, usage } from "@odds/proto";
import type { UsageGateway } from "../gateways/usage";
import { quotasOf, type KeyGrant } from "../access/api-key";
import type { RoutePage } from "../http/route";
import type { RateLimiter, WindowCount } from "../ratelimit/rate-limiter";
import type { RateWindow } from "../ratelimit/windows";

type AccountUsage = objects.AccountUsage;

/**
 * The calling key's record, limits and current counters. Every window is counted, limited or
 * not; a window the key has not used reports null counters.
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
