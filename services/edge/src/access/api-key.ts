import { createHash, timingSafeEqual } from "node:crypto";
import { status as GrpcStatus } from "@grpc/grpc-js";
import {
  hasGrpcStatus,
  storeCallPolicy,
  type Logger,
  type StoreCallLimits,
  type StoreCallPolicy,
} from "@odds/platform";
import { LRUCache } from "lru-cache";
import type { common, usage } from "@odds/proto";
import type { UsageGateway } from "../gateways/usage";
import type { WindowQuota } from "../ratelimit/rate-limiter";
import { RATE_WINDOWS } from "../ratelimit/windows";
import { invalidApiKey } from "../http/errors";
import { queryParameter } from "../http/query";
import { edgeMetrics } from "../system/metrics";

/** What the edge knows about the key behind a request once it is resolved. */
export interface KeyGrant {
  keyID: string;
  /** Hex SHA-256 of the key: how the key is named to the usage service. */
  keyHash: string;
  key: usage.KeyRecord;
  plan: usage.Plan;
  /** The plan as every read RPC receives it. */
  caller: common.Caller;
  /** The plan's rate-limit windows (null = unlimited). */
  quotas: WindowQuota[];
  /**
   * The key's revision token this grant was looked up under: the one this edge's admissions last
   * returned for the key before the lookup began (undefined when none had). An admission returning
   * the same token means no change of the key's record completed since, so the grant is as current
   * as a lookup made then (see keyRevisionKey).
   */
  revision?: string;
}

/**
 * The key sent in `x-api-key` (header names are case-insensitive) or the `apiKey` query parameter. The query string
 * is parsed only when the header is absent: a query of 50 event IDs took 4 % of the edge's CPU to parse on every
 * request (docs/performance.md, "Queries parsed once").
 */
export function presentedApiKey(
  headers: Record<string, string | string[] | undefined>,
  querystring: string,
): string | undefined {
  const header = headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const key = fromHeader ?? queryParameter(querystring, "apiKey") ?? undefined;
  return key && key.trim().length > 0 ? key.trim() : undefined;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * v1: the key only as `Authorization: Bearer <API_KEY>`. A key sent the v2 way (`x-api-key`,
 * `apiKey`) is refused even when valid, so a client learns the v1 rule at its first call.
 */
export function bearerApiKey(
  headers: Record<string, string | string[] | undefined>,
  querystring: string,
): string | undefined {
  if (headers["x-api-key"] !== undefined || queryParameter(querystring, "apiKey") !== null) {
    throw invalidApiKey("v1 takes the key only as Authorization: Bearer <API_KEY>; x-api-key and apiKey are refused");
  }
  const header = headers.authorization;
  const authorization = Array.isArray(header) ? header[0] : header;
  if (authorization === undefined) return undefined;
  const match = BEARER.exec(authorization);
  if (!match) throw invalidApiKey("expected Authorization: Bearer <API_KEY>");
  return match[1];
}

export function quotasOf(plan: usage.Plan): WindowQuota[] {
  return RATE_WINDOWS.map((window) => {
    const limit = plan.limits.find((candidate) => candidate.window === window);
    return { window, maxRequests: limit?.maxRequests ?? null, maxEntities: limit?.maxEntities ?? null };
  });
}

export function callerFromPlan(keyID: string, plan: usage.Plan): common.Caller {
  return {
    keyId: keyID,
    tier: plan.tier,
    allSports: plan.allSports,
    sportIds: plan.sportIds,
    allLeagues: plan.allLeagues,
    leagueIds: plan.leagueIds,
    allBookmakers: plan.allBookmakers,
    bookmakerIds: plan.bookmakerIds,
    fairOdds: plan.fairOdds,
  };
}

interface CachedGrant {
  keyHash: Buffer;
  /** undefined: the usage service does not know the key (cached too, so a flood of one bad key stays at the edge). */
  grant: KeyGrant | undefined;
  resolvedAtMs: number;
  /** The key's revision token the latest admission returned. */
  observedRevision?: string;
}

/** Unknown keys and keys no admission has reported on are current for the cache's lifetime alone. */
function isCurrent(cached: CachedGrant): boolean {
  return (
    cached.grant === undefined ||
    cached.observedRevision === undefined ||
    cached.grant.revision === cached.observedRevision
  );
}

export interface KeyAccessOptions {
  /** How long an answer of the usage service is used without asking again. */
  freshMs: number;
  /** How long the last good answer keeps being served while the keys store cannot answer. */
  staleGrantMs: number;
  /** Deadline and breaker of the key lookups. */
  limits: StoreCallLimits;
  logger: Logger;
  maxEntries?: number;
}

/**
 * Resolves keys to their plan through the usage service and caches the answer for a few
 * seconds (unknown keys as well). Keys are hashed on arrival; the cache is addressed by keyID
 * and the full hash is compared in constant time. Unknown keys resolve to undefined.
 * A grant is looked up again sooner when an admission returns another revision token for its key
 * than the one it was looked up under (`observeRevision`): the key's record changed (deactivated,
 * say), and the key's next request at this edge sees it.
 * While the usage service or its store cannot answer (down, hung, past the deadline), a key's
 * last good answer is served for up to `staleGrantMs`, so the routes that serve from memory
 * keep serving; a key never seen before fails with the lookup's error.
 */
export class KeyAccess {
  private readonly cache: LRUCache<string, CachedGrant>;
  private readonly lookups: StoreCallPolicy;
  private lastStaleLogMs = 0;

  constructor(
    private readonly usage: UsageGateway,
    private readonly options: KeyAccessOptions,
  ) {
    this.cache = new LRUCache({
      max: options.maxEntries ?? 10_000,
      ttl: Math.max(options.freshMs, options.staleGrantMs),
    });
    this.lookups = storeCallPolicy(options.limits);
  }

  async resolve(apiKey: string, nowMs = Date.now()): Promise<KeyGrant | undefined> {
    const keyHash = createHash("sha256").update(apiKey, "utf8").digest();
    const keyID = keyHash.toString("hex").slice(0, 16);
    const cachedEntry = this.cache.get(keyID);
    const cached = cachedEntry && timingSafeEqual(cachedEntry.keyHash, keyHash) ? cachedEntry : undefined;
    if (cached && nowMs - cached.resolvedAtMs < this.options.freshMs && isCurrent(cached)) return cached.grant;
    // Taken before the lookup starts: a change whose revision is written later is not in this grant's tag.
    const revision = cached?.observedRevision;

    let resolved: usage.ResolveKeyResponse;
    try {
      resolved = await this.lookups.execute(() =>
        this.usage.resolveKey(keyHash.toString("hex"), this.options.limits.timeoutMs),
      );
    } catch (err) {
      if (hasGrpcStatus(err, GrpcStatus.NOT_FOUND)) {
        this.remember(keyID, keyHash, undefined, nowMs);
        return undefined;
      }
      if (cached && nowMs - cached.resolvedAtMs < this.options.staleGrantMs) {
        this.noteStale(err, nowMs);
        return cached.grant;
      }
      throw err;
    }
    if (!resolved.key || !resolved.plan) return undefined;
    const grant: KeyGrant = {
      keyID: resolved.key.keyId,
      keyHash: keyHash.toString("hex"),
      key: resolved.key,
      plan: resolved.plan,
      caller: callerFromPlan(resolved.key.keyId, resolved.plan),
      quotas: quotasOf(resolved.plan),
      revision,
    };
    this.remember(keyID, keyHash, grant, nowMs);
    return grant;
  }

  /** Notes the revision token an admission of the key returned (see KeyGrant.revision). No I/O. */
  observeRevision(keyID: string, revision: string): void {
    const held = this.cache.peek(keyID);
    if (held) held.observedRevision = revision;
  }

  private remember(keyID: string, keyHash: Buffer, grant: KeyGrant | undefined, nowMs: number): void {
    // An observation made while the lookup ran is kept: it may already say the grant is behind.
    const held = this.cache.peek(keyID);
    const observedRevision = held?.keyHash.equals(keyHash) ? held.observedRevision : undefined;
    this.cache.set(keyID, { keyHash, grant, resolvedAtMs: nowMs, observedRevision });
  }

  private noteStale(err: unknown, nowMs: number): void {
    edgeMetrics.staleKeyGrants.inc();
    if (nowMs - this.lastStaleLogMs < 10_000) return;
    this.lastStaleLogMs = nowMs;
    this.options.logger.warn(
      { err: { message: (err as Error).message } },
      "keys store unavailable: serving keys from their last good grant",
    );
  }
}
