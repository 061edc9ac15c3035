import type { Middleware } from "koa";
import { presentedApiKey, type KeyAccess, type KeyGrant } from "../access/api-key";
import type { UsageRecorder } from "../access/usage-recorder";
import { RateLimiterUnavailableError, type RateLimiter, type WindowCount } from "../ratelimit/rate-limiter";
import type { RateWindow } from "../ratelimit/windows";
import { edgeMetrics } from "../system/metrics";
import { inactiveApiKey, invalidApiKey, rateLimitExceeded, serviceUnavailable } from "./errors";

/** What the admission of one request returned. */
export interface Admitted {
  /** The key's counters per window as the request was admitted (that request counted). */
  counts: () => Map<RateWindow, WindowCount>;
  /** The key's revision token then (see KeyGrant.revision). */
  keyRevision: string;
}

/** What the keyed middlewares leave on ctx.state for the route. */
export interface KeyedState {
  grant: KeyGrant;
  /** Objects in `data`, set by the envelope writer. */
  entities?: number;
  /** What this request's admission returned (absent when Redis was not reached). */
  admitted?: Admitted;
}

/** Where a contract takes the key from (v2: x-api-key or apiKey; v1: Authorization: Bearer). */
export type KeyPresentation = typeof presentedApiKey;

/** 401 for a missing or unknown key, 403 for a deactivated one; otherwise the key's grant goes on ctx.state. */
export function authenticate(access: KeyAccess, presented: KeyPresentation = presentedApiKey): Middleware {
  return async (ctx, next) => {
    const apiKey = presented(ctx.headers, ctx.querystring);
    if (!apiKey) throw invalidApiKey();
    const grant = await access.resolve(apiKey);
    if (!grant) throw invalidApiKey();
    if (!grant.key.isActive) throw inactiveApiKey();
    (ctx.state as KeyedState).grant = grant;
    await next();
  };
}

/**
 * Counts the request in every window before serving (429 when a window is exhausted): one Redis
 * call, which also adds the entities of the key's earlier responses and returns the key's revision
 * (handed to the grant cache). The entities of this response are handed to the limiter (carried by
 * the key's next request) and buffered with the request for the usage rollups; neither costs I/O here.
 */
export function rateLimit(limiter: RateLimiter, recorder: UsageRecorder, access: KeyAccess): Middleware {
  return async (ctx, next) => {
    const state = ctx.state as KeyedState;
    const quotas = state.grant.quotas;
    let admission;
    try {
      admission = await limiter.admit(state.grant.keyID, quotas);
    } catch (err) {
      if (err instanceof RateLimiterUnavailableError) throw serviceUnavailable("rate limiting is unavailable");
      throw err;
    }
    const { headline, counts, keyRevision } = admission;
    if (keyRevision !== undefined) access.observeRevision(state.grant.keyID, keyRevision);
    if (headline) {
      ctx.set("X-RateLimit-Limit", String(headline.limit));
      ctx.set("X-RateLimit-Remaining", String(headline.remaining));
      ctx.set("X-RateLimit-Reset", String(headline.resetSeconds));
    }
    if (!admission.allowed) {
      edgeMetrics.rateLimitRejections.inc({ tier: state.grant.plan.tier, window: headline?.window ?? "unknown" });
      throw rateLimitExceeded(headline?.window ?? "a", headline?.resetSeconds ?? 1);
    }
    if (counts && keyRevision !== undefined) state.admitted = { counts, keyRevision };
    try {
      await next();
    } finally {
      const entities = state.entities ?? 0;
      recorder.record(state.grant.keyID, entities);
      limiter.recordEntities(state.grant.keyID, quotas, entities);
    }
  };
}
