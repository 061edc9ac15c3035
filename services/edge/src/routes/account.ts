import { status as GrpcStatus } from "@grpc/grpc-js";
import { hasGrpcStatus } from "@odds/platform";
import type { objects, usage } from "@odds/proto";
import { quotasOf, type KeyGrant } from "../access/api-key";
import type { FreshKeyReads } from "../access/fresh-key-reads";
import type { Admitted } from "../http/admission";
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

/** Said in the envelope's notice when the key record could not be read fresh. */
export const KEY_RECORD_AS_ADMITTED =
  "The key record could not be read just now: its tier and limits are shown as this request was admitted.";

/**
 * GET /account/usage: the key record as current as a fresh read. When this call's admission
 * returned the revision token the admitting grant was looked up under, no change of the key's
 * record completed since that lookup began, and the grant is shown with no read at all (see
 * KeyGrant.revision). Otherwise the record is read fresh from the usage service (one read of a key
 * at a time, see FreshKeyReads); NOT_FOUND when it is gone. While the usage service cannot answer
 * (a pod being replaced, its store down), the record that admitted this very request is shown, with
 * a notice, rather than failing a route whose contract lists no server error. The counters are those
 * the admission script returned for this call (it counted), so the route costs no Redis call of its
 * own; only when the limiter was not reached are they read from Redis again.
 */
export async function loadAccountUsage(
  grant: KeyGrant,
  keyReads: FreshKeyReads,
  limiter: RateLimiter,
  admitted: Admitted | undefined,
): Promise<RoutePage> {
  const current = grant.revision !== undefined && admitted?.keyRevision === grant.revision;
  let resolved: usage.ResolveKeyResponse | undefined = current ? { key: grant.key, plan: grant.plan } : undefined;
  if (!resolved) {
    try {
      resolved = await keyReads.resolve(grant.keyHash);
    } catch (err) {
      if (hasGrpcStatus(err, GrpcStatus.NOT_FOUND)) throw err;
    }
  }
  const key = resolved?.key ?? grant.key;
  const plan = resolved?.plan ?? grant.plan;
  const counts = admitted ? admitted.counts() : await limiter.current(grant.keyID, quotasOf(plan));
  const items = [Buffer.from(JSON.stringify(accountUsage(key, plan, counts)))];
  return resolved ? { items, nextCursor: null } : { items, nextCursor: null, notice: KEY_RECORD_AS_ADMITTED };
}
