import { createHash } from "node:crypto";
import { storeCallPolicy, type Logger, type StoreCallLimits, type StoreCallPolicy } from "@odds/platform";
import type { createClient } from "redis";
import { secondsUntilReset, windowAt, type RateWindow, type WindowSpan } from "./windows";

export type RedisClient = ReturnType<typeof createClient>;

/** One window of a plan: null = unlimited. */
export interface WindowQuota {
  window: RateWindow;
  maxRequests: number | null;
  maxEntities: number | null;
}

export interface WindowCount {
  window: RateWindow;
  requests: number;
  entities: number;
}

/** The window reported in X-RateLimit-* (and Retry-After when refused). */
export interface HeadlineWindow {
  window: RateWindow;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface Admission {
  allowed: boolean;
  /** false when Redis was unreachable (stopped, hung or too slow) and the limiter failed open. */
  enforced: boolean;
  headline?: HeadlineWindow;
}

/** Redis could not be reached and the limiter is configured to fail closed. */
export class RateLimiterUnavailableError extends Error {
  override name = "RateLimiterUnavailableError";
}

/**
 * One script checks and counts every window of a key atomically.
 * KEYS: one hash per tracked window. ARGV: mode, entities to add, then per window
 * max-requests, max-entities (-1 = unlimited) and the window end (ms) for PEXPIREAT.
 * admit: refuses (without counting) when any window is at its request maximum or its
 * entities are already at their maximum; otherwise counts one request in every window.
 * Windows go shortest first; the refusing window is the LAST one exhausted (the one resetting latest),
 * so Retry-After says when a retry can pass, not when a shorter window resets into a still-spent longer one.
 * Returns {allowed, refusing window index (1-based, 0 = none), requests1, entities1, ...}.
 */
export const RATE_LIMIT_SCRIPT = `
local mode = ARGV[1]
local add = tonumber(ARGV[2])
local n = #KEYS
local out = {1, 0}
if mode == "admit" then
  local current = {}
  for i = 1, n do
    local base = 2 + (i - 1) * 3
    local maxRequests = tonumber(ARGV[base + 1])
    local maxEntities = tonumber(ARGV[base + 2])
    local values = redis.call("HMGET", KEYS[i], "r", "e")
    local r = tonumber(values[1]) or 0
    local e = tonumber(values[2]) or 0
    current[i] = {r, e}
    if (maxRequests >= 0 and r >= maxRequests) or (maxEntities >= 0 and e >= maxEntities) then
      out[1] = 0
      out[2] = i
    end
  end
  if out[1] == 0 then
    for i = 1, n do
      table.insert(out, current[i][1])
      table.insert(out, current[i][2])
    end
    return out
  end
end
for i = 1, n do
  local base = 2 + (i - 1) * 3
  local r
  local e
  if mode == "admit" then
    r = redis.call("HINCRBY", KEYS[i], "r", 1)
    e = tonumber(redis.call("HGET", KEYS[i], "e")) or 0
  else
    e = redis.call("HINCRBY", KEYS[i], "e", add)
    r = tonumber(redis.call("HGET", KEYS[i], "r")) or 0
  end
  redis.call("PEXPIREAT", KEYS[i], tonumber(ARGV[base + 3]) + 1000)
  table.insert(out, r)
  table.insert(out, e)
end
return out
`;

/** Redis answers in well under a millisecond; half a second means it is stalled or partitioned. */
export const DEFAULT_REDIS_CALL_LIMITS: StoreCallLimits = {
  timeoutMs: 500,
  breakAfterFailures: 5,
  probeAfterMs: 2_000,
};

const SCRIPT_SHA = createHash("sha1").update(RATE_LIMIT_SCRIPT).digest("hex");

/** A limited window of a key at one instant, with what Redis holds for it. */
interface WindowState {
  quota: WindowQuota;
  span: WindowSpan;
  requests: number;
  entities: number;
}

function headlineOf(state: WindowState, limit: number, nowMs: number): HeadlineWindow {
  return {
    window: state.quota.window,
    limit,
    remaining: Math.max(0, limit - (limit === state.quota.maxRequests ? state.requests : state.entities)),
    resetSeconds: secondsUntilReset(state.span, nowMs),
  };
}

/** The request-limited window with the fewest requests left (ties: the one resetting first). */
export function tightestWindow(states: WindowState[], nowMs: number): HeadlineWindow | undefined {
  let best: HeadlineWindow | undefined;
  for (const state of states) {
    if (state.quota.maxRequests === null) continue;
    const candidate = headlineOf(state, state.quota.maxRequests, nowMs);
    if (
      !best ||
      candidate.remaining < best.remaining ||
      (candidate.remaining === best.remaining && candidate.resetSeconds < best.resetSeconds)
    ) {
      best = candidate;
    }
  }
  return best;
}

/**
 * Fixed-window rate limits per key in Redis. Requests are counted before serving,
 * entities (objects in `data`) after the response size is known. Every Redis call has a
 * deadline inside a circuit breaker; when Redis is refused, hung or past the deadline the
 * limiter fails open (serves, logs, reports itself unreachable) or closed.
 */
export class RateLimiter {
  private reachable = false;
  private lastFailureLogMs = 0;
  private readonly calls: StoreCallPolicy;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: {
      failMode: "open" | "closed";
      logger: Logger;
      prefix?: string;
      limits?: StoreCallLimits;
    },
  ) {
    this.calls = storeCallPolicy(options.limits ?? DEFAULT_REDIS_CALL_LIMITS);
    redis.on("ready", () => {
      this.reachable = true;
    });
    redis.on("error", (err: Error) => this.markUnreachable(err));
    redis.on("end", () => {
      this.reachable = false;
    });
    if (redis.isReady) this.reachable = true;
  }

  isReachable(): boolean {
    return this.reachable;
  }

  async admit(keyID: string, quotas: WindowQuota[], nowMs = Date.now()): Promise<Admission> {
    // Every window is counted, limited or not: /account/usage reports usage of unlimited keys too.
    const tracked = quotas;
    if (tracked.length === 0) return { allowed: true, enforced: true };
    const reply = await this.run(keyID, "admit", 0, tracked, nowMs);
    if (!reply) return { allowed: true, enforced: false };
    if (reply.allowed) return { allowed: true, enforced: true, headline: tightestWindow(reply.states, nowMs) };
    const refusing = reply.refusing;
    const atRequestLimit = refusing.quota.maxRequests !== null && refusing.requests >= refusing.quota.maxRequests;
    const limit = atRequestLimit ? refusing.quota.maxRequests : refusing.quota.maxEntities;
    return { allowed: false, enforced: true, headline: headlineOf(refusing, limit ?? 0, nowMs) };
  }

  /** Adds the entities a response served. Sent at once so the next request of the key sees them. */
  async addEntities(keyID: string, quotas: WindowQuota[], entities: number, nowMs = Date.now()): Promise<void> {
    // Every window is counted, limited or not: /account/usage reports usage of unlimited keys too.
    const tracked = quotas;
    if (tracked.length === 0 || entities <= 0) return;
    await this.run(keyID, "entities", entities, tracked, nowMs);
  }

  /** Current counters of every window the key has used (absent where unused or Redis is unreachable). */
  async current(keyID: string, quotas: WindowQuota[], nowMs = Date.now()): Promise<Map<RateWindow, WindowCount>> {
    // Every window is counted, limited or not: /account/usage reports usage of unlimited keys too.
    const tracked = quotas;
    const counts = new Map<RateWindow, WindowCount>();
    if (tracked.length === 0) return counts;
    try {
      const replies = await this.calls.execute(({ signal }) => {
        const redis = this.redis.withAbortSignal(signal);
        return Promise.all(
          tracked.map((quota) => redis.hmGet(this.keyOf(keyID, windowAt(quota.window, nowMs)), ["r", "e"])),
        );
      });
      tracked.forEach((quota, index) => {
        const [r, e] = replies[index] ?? [];
        // No counter yet: the key has not been used in this window (reported as null).
        if (r === null && e === null) return;
        counts.set(quota.window, { window: quota.window, requests: Number(r ?? 0), entities: Number(e ?? 0) });
      });
    } catch (err) {
      this.markUnreachable(err as Error);
    }
    return counts;
  }

  private keyOf(keyID: string, span: WindowSpan): string {
    // The hash tag keeps every window of a key in one Redis Cluster slot, as one script needs.
    return `${this.options.prefix ?? "rl"}:{${keyID}}:${span.window}:${span.startMs}`;
  }

  private async run(
    keyID: string,
    mode: "admit" | "entities",
    entities: number,
    quotas: WindowQuota[],
    nowMs: number,
  ): Promise<{ allowed: true; states: WindowState[] } | { allowed: false; refusing: WindowState } | undefined> {
    const spans = quotas.map((quota) => windowAt(quota.window, nowMs));
    const keys = spans.map((span) => this.keyOf(keyID, span));
    const args = [mode, String(entities)];
    quotas.forEach((quota, index) => {
      args.push(String(quota.maxRequests ?? -1), String(quota.maxEntities ?? -1), String(spans[index]?.endMs ?? nowMs));
    });
    let reply: number[];
    try {
      const raw = await this.calls.execute(async ({ signal }) => {
        const redis = this.redis.withAbortSignal(signal);
        try {
          return await redis.evalSha(SCRIPT_SHA, { keys, arguments: args });
        } catch (err) {
          if (!String((err as Error).message).includes("NOSCRIPT")) throw err;
          return redis.eval(RATE_LIMIT_SCRIPT, { keys, arguments: args });
        }
      });
      this.reachable = true;
      reply = (raw as unknown[]).map(Number);
    } catch (err) {
      this.markUnreachable(err as Error);
      if (this.options.failMode === "closed") throw new RateLimiterUnavailableError("rate limiter unavailable");
      return undefined;
    }
    const states = quotas.map((quota, index) => ({
      quota,
      span: windowAt(quota.window, nowMs),
      requests: reply[2 + index * 2] ?? 0,
      entities: reply[3 + index * 2] ?? 0,
    }));
    const refusing = states[(reply[1] ?? 0) - 1];
    return reply[0] === 1 || !refusing ? { allowed: true, states } : { allowed: false, refusing };
  }

  private markUnreachable(err: Error): void {
    this.reachable = false;
    const now = Date.now();
    if (now - this.lastFailureLogMs > 10_000) {
      this.lastFailureLogMs = now;
      this.options.logger.warn(
        { err: { message: err.message }, failMode: this.options.failMode },
        "rate limiter cannot reach Redis",
      );
    }
  }
}
