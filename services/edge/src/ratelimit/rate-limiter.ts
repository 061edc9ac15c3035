import { createHash } from "node:crypto";
import DataLoader from "dataloader";
import {
  keyRevisionKey,
  storeCallPolicy,
  type Logger,
  type RedisClient,
  type StoreCallLimits,
  type StoreCallPolicy,
} from "@odds/platform";
import { secondsUntilReset, windowAt, type RateWindow, type WindowSpan } from "./windows";

export type { RedisClient } from "@odds/platform";

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
  /** When the window resets (Unix ms): resetSeconds rounds it up to a whole second. */
  resetAtMs: number;
}

export interface Admission {
  allowed: boolean;
  /** false when Redis was unreachable (stopped, hung or too slow) and the limiter failed open. */
  enforced: boolean;
  headline?: HeadlineWindow;
  /**
   * An admitted request's counters in every window, as the script left them: this request counted,
   * the key's earlier entities added. What /account/usage reports, without a second Redis call.
   */
  counts?: () => Map<RateWindow, WindowCount>;
  /** The key's revision token as this request was admitted ("" when none was written); absent when not enforced. */
  keyRevision?: string;
}

function countsOf(states: WindowState[]): Map<RateWindow, WindowCount> {
  const counts = new Map<RateWindow, WindowCount>();
  for (const { quota, requests, entities } of states)
    counts.set(quota.window, { window: quota.window, requests, entities });
  return counts;
}

/** Redis could not be reached and the limiter is configured to fail closed. */
export class RateLimiterUnavailableError extends Error {
  override name = "RateLimiterUnavailableError";
}

/**
 * One script checks and counts every window of a key atomically, for one request or for several of
 * the same key made together (one batch, below), and first adds the entities the key's earlier
 * responses served (carried here instead of a call of their own).
 * KEYS: the key's revision (`keyRevisionKey`), then each window hash the call touches, once.
 * ARGV: the number of admissions, then each window hash's end (ms), for PEXPIREAT, in KEYS' order; then per
 * admission: c, then c pairs (window index, entities carried into it), then n, then n triples (window index,
 * max-requests, max-entities; -1 = unlimited), its windows shortest first. A window index counts from 1 in the
 * window hashes (KEYS[1 + index]).
 * The admissions are decided one after another, in their order, on counters read once: each sees every request
 * and entity of the ones before it, exactly as the same admissions made one call each would. An admission's
 * carried entities are added before its check, so a request sees everything served before it.
 * admit: refuses (without counting) when any window is at its request maximum or its entities are already at
 * their maximum; otherwise counts one request in every window. n = 0 only adds.
 * The refusing window is the LAST one exhausted (the one resetting latest), so Retry-After says when a retry
 * can pass, not when a shorter window resets into a still-spent longer one.
 * The counts are written once, at the end, one command a hash: a hash the call read gets the counters it now
 * holds (HSET), one that only received carried entities is added to (HINCRBY). A hash gets its expiry (its
 * window end, plus a second) when this call makes it: one that held no counter before. A hash is only ever made
 * here, so every hash has its expiry, and a request pays no PEXPIREAT once its windows exist.
 * Returns per admission {allowed, refusing window index among its own (1-based, 0 = none), requests1,
 * entities1, ..., revision}: the key's revision token last ("" when none was written), read in the same
 * atomic step.
 */
export const RATE_LIMIT_SCRIPT = `
local admissions = tonumber(ARGV[1])
local windows = #KEYS - 1
local requests, entities, addedRequests, addedEntities, absent = {}, {}, {}, {}, {}
for k = 1, windows do
  addedRequests[k] = 0
  addedEntities[k] = 0
end
local function load(k)
  if requests[k] == nil then
    local values = redis.call("HMGET", KEYS[1 + k], "r", "e")
    absent[k] = values[1] == false and values[2] == false
    requests[k] = tonumber(values[1]) or 0
    entities[k] = (tonumber(values[2]) or 0) + addedEntities[k]
  end
end
local revision = redis.call("GET", KEYS[1]) or ""
local replies = {}
local at = 2 + windows
for a = 1, admissions do
  local carried = tonumber(ARGV[at])
  for j = 1, carried do
    local k = tonumber(ARGV[at + 2 * j - 1])
    local add = tonumber(ARGV[at + 2 * j])
    addedEntities[k] = addedEntities[k] + add
    if entities[k] ~= nil then entities[k] = entities[k] + add end
  end
  at = at + 1 + 2 * carried
  local n = tonumber(ARGV[at])
  local out = {1, 0}
  for i = 1, n do
    local b = at + 3 * (i - 1)
    local k = tonumber(ARGV[b + 1])
    local maxRequests = tonumber(ARGV[b + 2])
    local maxEntities = tonumber(ARGV[b + 3])
    load(k)
    if (maxRequests >= 0 and requests[k] >= maxRequests) or (maxEntities >= 0 and entities[k] >= maxEntities) then
      out[1] = 0
      out[2] = i
    end
  end
  for i = 1, n do
    local k = tonumber(ARGV[at + 3 * (i - 1) + 1])
    if out[1] == 1 then
      requests[k] = requests[k] + 1
      addedRequests[k] = addedRequests[k] + 1
    end
    table.insert(out, requests[k])
    table.insert(out, entities[k])
  end
  table.insert(out, revision)
  replies[a] = out
  at = at + 1 + 3 * n
end
for k = 1, windows do
  local key = KEYS[1 + k]
  local made = false
  if requests[k] ~= nil then
    if addedRequests[k] > 0 and addedEntities[k] > 0 then
      redis.call("HSET", key, "r", requests[k], "e", entities[k])
    elseif addedRequests[k] > 0 then
      redis.call("HSET", key, "r", requests[k])
    elseif addedEntities[k] > 0 then
      redis.call("HSET", key, "e", entities[k])
    end
    made = absent[k] and (addedRequests[k] > 0 or addedEntities[k] > 0)
  elseif addedEntities[k] > 0 then
    made = redis.call("HINCRBY", key, "e", addedEntities[k]) == addedEntities[k]
  end
  if made then
    redis.call("PEXPIREAT", key, tonumber(ARGV[1 + k]) + 1000)
  end
end
return replies
`;

/** Redis answers in well under a millisecond; half a second means it is stalled or partitioned. */
export const DEFAULT_REDIS_CALL_LIMITS: StoreCallLimits = {
  timeoutMs: 500,
  breakAfterFailures: 5,
  probeAfterMs: 2_000,
};

/** How long a response's entities wait for its key's next request before the background flush sends them. */
export const DEFAULT_ENTITY_FLUSH_MS = 200;

const SCRIPT_SHA = createHash("sha1").update(RATE_LIMIT_SCRIPT).digest("hex");

/** The most admissions one batch carries (one turn of the event loop seldom makes more). */
const MAX_SCRIPT_BATCH = 128;

/** One call of the rate-limit script. */
export interface ScriptCall {
  keys: string[];
  arguments: string[];
}

/** A window hash the script admits in: its limits (null = unlimited) and its end, for its expiry. */
export interface AdmittedWindow {
  key: string;
  maxRequests: number | null;
  maxEntities: number | null;
  endMs: number;
}

/** A window hash that receives carried entities. */
export interface CarriedEntities {
  key: string;
  entities: number;
  endMs: number;
}

/** One admission of a key: the windows it is counted in (none: it only carries) and the entities it carries. */
export interface AdmissionCall {
  admitted: AdmittedWindow[];
  carried: CarriedEntities[];
}

/**
 * The script's KEYS and ARGV (laid out as RATE_LIMIT_SCRIPT reads them) for admissions of one key, in the order
 * they are decided: the one place that knows the layout. Every window hash must be the key's (its hash tag), so
 * the call runs in one Redis Cluster slot.
 */
export function scriptCall(revisionKey: string, admissions: readonly AdmissionCall[]): ScriptCall {
  const keys = [revisionKey];
  const ends: string[] = [];
  const indexes = new Map<string, string>();
  const indexOf = (key: string, endMs: number): string => {
    let index = indexes.get(key);
    if (index === undefined) {
      keys.push(key);
      ends.push(String(endMs));
      index = String(keys.length - 1);
      indexes.set(key, index);
    }
    return index;
  };
  const decided: string[] = [];
  for (const { admitted, carried } of admissions) {
    decided.push(String(carried.length));
    for (const window of carried) decided.push(indexOf(window.key, window.endMs), String(window.entities));
    decided.push(String(admitted.length));
    for (const window of admitted) {
      decided.push(
        indexOf(window.key, window.endMs),
        String(window.maxRequests ?? -1),
        String(window.maxEntities ?? -1),
      );
    }
  }
  return { keys, arguments: [String(admissions.length), ...ends, ...decided] };
}

/** An admission of the key whose revision is `revisionKey`, as the limiter batches it. */
interface KeyAdmission extends AdmissionCall {
  revisionKey: string;
}

/** The script's reply, loading it first when Redis does not hold it (a restart, a flush). */
async function runScript(redis: RedisClient, call: ScriptCall): Promise<unknown> {
  try {
    return await redis.evalSha(SCRIPT_SHA, call);
  } catch (err) {
    if (!String((err as Error).message).includes("NOSCRIPT")) throw err;
    return redis.eval(RATE_LIMIT_SCRIPT, call);
  }
}

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
    resetAtMs: state.span.endMs,
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

/** Entities served to a key within one second, not yet in Redis (every window of that second is one key set). */
interface UnsentEntities {
  quotas: WindowQuota[];
  servedAtMs: number;
  entities: number;
}

/**
 * Fixed-window rate limits per key in Redis, one Redis call per request at most (the requests of one
 * key read in the same turn of the event loop share one: `runScripts`). Requests are counted
 * before serving; the entities (objects in `data`) a response served are known only after it,
 * so they are held here and carried by the key's next admission, which adds them before its
 * check, into the windows they were served in. Entities a key's next request does not carry
 * soon are sent by a background flush every `entityFlushMs` (one call per key with entities
 * waiting, however many requests served them), and by `current()` and `stop()`.
 * Every Redis call has a deadline inside a circuit breaker; the script calls made in one turn of the
 * event loop share one. When Redis is refused, hung or past the deadline the limiter
 * fails open (serves, logs, reports itself unreachable) or closed.
 * Entities of a call that failed are dropped, not re-sent: the call may have been applied, and
 * counting them twice would refuse a customer wrongly.
 */
export class RateLimiter {
  private reachable = false;
  private lastFailureLogMs = 0;
  private readonly calls: StoreCallPolicy;
  private readonly unsent = new Map<string, UnsentEntities[]>();
  private readonly admissions: DataLoader<KeyAdmission, unknown>;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: {
      failMode: "open" | "closed";
      logger: Logger;
      prefix?: string;
      limits?: StoreCallLimits;
      /** Longest a served response's entities wait for the key's next request before they are sent alone. */
      entityFlushMs?: number;
    },
  ) {
    this.calls = storeCallPolicy(options.limits ?? DEFAULT_REDIS_CALL_LIMITS);
    // The admissions made in one turn of the event loop (of the requests it read) go as one batch: the
    // deadline and breaker cost as much per call as the call itself does, and a key's admissions share a call.
    this.admissions = new DataLoader((admissions) => this.runScripts(admissions), {
      cache: false,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
      maxBatchSize: MAX_SCRIPT_BATCH,
    });
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

  /** Loads the script into Redis ahead of the first admission, which then pays no NOSCRIPT round trip. */
  async loadScript(): Promise<void> {
    await this.redis.scriptLoad(RATE_LIMIT_SCRIPT);
  }

  /** Starts the background flush of entities no request carried. */
  start(): void {
    this.flushTimer = setInterval(() => void this.flush(), this.options.entityFlushMs ?? DEFAULT_ENTITY_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Stops the background flush and sends every entity still held. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flush();
  }

  async admit(keyID: string, quotas: WindowQuota[], nowMs = Date.now()): Promise<Admission> {
    // Every window is counted, limited or not: /account/usage reports usage of unlimited keys too.
    if (quotas.length === 0) return { allowed: true, enforced: true };
    const reply = await this.run(keyID, quotas, this.takeUnsent(keyID), nowMs);
    if (!reply) return { allowed: true, enforced: false };
    const keyRevision = reply.keyRevision;
    if (reply.allowed) {
      const { states } = reply;
      const headline = tightestWindow(states, nowMs);
      return { allowed: true, enforced: true, headline, counts: () => countsOf(states), keyRevision };
    }
    const refusing = reply.refusing;
    const atRequestLimit = refusing.quota.maxRequests !== null && refusing.requests >= refusing.quota.maxRequests;
    const limit = atRequestLimit ? refusing.quota.maxRequests : refusing.quota.maxEntities;
    return { allowed: false, enforced: true, headline: headlineOf(refusing, limit ?? 0, nowMs), keyRevision };
  }

  /**
   * Notes the entities a response served, counted in the windows of `servedAtMs`. No Redis call:
   * the key's next admission (or the background flush) adds them before anything is checked.
   */
  recordEntities(keyID: string, quotas: WindowQuota[], entities: number, servedAtMs = Date.now()): void {
    if (quotas.length === 0 || entities <= 0) return;
    const held = this.unsent.get(keyID);
    const last = held?.[held.length - 1];
    // Windows are aligned on UTC boundaries, so one second's windows are all the same hashes.
    if (last && Math.floor(last.servedAtMs / 1_000) === Math.floor(servedAtMs / 1_000) && last.quotas === quotas) {
      last.entities += entities;
    } else if (held) {
      held.push({ quotas, servedAtMs, entities });
    } else {
      this.unsent.set(keyID, [{ quotas, servedAtMs, entities }]);
    }
  }

  /** Sends every held entity, one call per key. */
  async flush(): Promise<void> {
    const keyIDs = [...this.unsent.keys()];
    await Promise.all(keyIDs.map((keyID) => this.sendUnsent(keyID)));
  }

  /** Current counters of every window the key has used (absent where unused or Redis is unreachable). */
  async current(keyID: string, quotas: WindowQuota[], nowMs = Date.now()): Promise<Map<RateWindow, WindowCount>> {
    // Every window is counted, limited or not: /account/usage reports usage of unlimited keys too.
    const counts = new Map<RateWindow, WindowCount>();
    if (quotas.length === 0) return counts;
    await this.sendUnsent(keyID);
    try {
      const replies = await this.calls.execute(({ signal }) => {
        const redis = this.redis.withAbortSignal(signal);
        return Promise.all(
          quotas.map((quota) => redis.hmGet(this.keyOf(keyID, windowAt(quota.window, nowMs)), ["r", "e"])),
        );
      });
      quotas.forEach((quota, index) => {
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

  private takeUnsent(keyID: string): UnsentEntities[] {
    const held = this.unsent.get(keyID) ?? [];
    this.unsent.delete(keyID);
    return held;
  }

  private async sendUnsent(keyID: string): Promise<void> {
    const held = this.takeUnsent(keyID);
    if (held.length === 0) return;
    // Nothing to admit: the script only adds. A refused or failed call is logged by run().
    await this.run(keyID, [], held, Date.now()).catch(() => undefined);
  }

  private keyOf(keyID: string, span: WindowSpan): string {
    // The hash tag keeps every window of a key in one Redis Cluster slot, as one script needs.
    return `${this.options.prefix ?? "rl"}:{${keyID}}:${span.window}:${span.startMs}`;
  }

  private async run(
    keyID: string,
    quotas: WindowQuota[],
    carried: UnsentEntities[],
    nowMs: number,
  ): Promise<
    | (({ allowed: true; states: WindowState[] } | { allowed: false; refusing: WindowState }) & { keyRevision: string })
    | undefined
  > {
    const spans = quotas.map((quota) => windowAt(quota.window, nowMs));
    const admitted = quotas.map((quota, index) => {
      const span = spans[index] ?? windowAt(quota.window, nowMs);
      return {
        key: this.keyOf(keyID, span),
        maxRequests: quota.maxRequests,
        maxEntities: quota.maxEntities,
        endMs: span.endMs,
      };
    });
    const carriedTo = carried.flatMap((held) =>
      held.quotas.map((quota) => {
        const span = windowAt(quota.window, held.servedAtMs);
        return { key: this.keyOf(keyID, span), entities: held.entities, endMs: span.endMs };
      }),
    );
    let reply: number[];
    let keyRevision: string;
    try {
      const admission = { revisionKey: keyRevisionKey(keyID), admitted, carried: carriedTo };
      const raw = (await this.admissions.load(admission)) as unknown[];
      this.reachable = true;
      keyRevision = String(raw[raw.length - 1]);
      reply = raw.slice(0, -1).map(Number);
    } catch (err) {
      this.markUnreachable(err as Error);
      if (carried.length > 0) {
        const entities = carried.reduce((sum, held) => sum + held.entities, 0);
        this.options.logger.warn({ keyID, entities }, "entities not counted: the rate-limit call failed");
      }
      if (this.options.failMode === "closed") throw new RateLimiterUnavailableError("rate limiter unavailable");
      return undefined;
    }
    const states = quotas.map((quota, index) => ({
      quota,
      span: spans[index] ?? windowAt(quota.window, nowMs),
      requests: reply[2 + index * 2] ?? 0,
      entities: reply[3 + index * 2] ?? 0,
    }));
    const refusing = states[(reply[1] ?? 0) - 1];
    return reply[0] === 1 || !refusing
      ? { allowed: true, states, keyRevision }
      : { allowed: false, refusing, keyRevision };
  }

  /**
   * One batch of admissions under one deadline and breaker: one script call per key, deciding that key's
   * admissions in the order they were made (Redis runs each script whole, in the order sent; the client
   * writes the batch at once). Each key's call answers on its own: a call that failed fails its key's
   * admissions alone, and the other keys keep their replies. The batch fails as a whole, and counts once
   * in the breaker, when its deadline passes, the breaker is open, or every call failed.
   * The commands get no AbortSignal: the client writes the batch at once, so there is seldom anything
   * unwritten to drop, and a listener per command on the signal cost more than the batching saved.
   * A command that Redis runs after its deadline (a hung Redis resuming) counts requests that were
   * served; their carried entities are not sent again (see above), so nothing counts twice.
   */
  private async runScripts(admissions: readonly KeyAdmission[]): Promise<unknown[]> {
    const byKey = new Map<string, { indexes: number[]; calls: KeyAdmission[] }>();
    admissions.forEach((admission, index) => {
      const key = byKey.get(admission.revisionKey);
      if (key) {
        key.indexes.push(index);
        key.calls.push(admission);
      } else {
        byKey.set(admission.revisionKey, { indexes: [index], calls: [admission] });
      }
    });
    return this.calls.execute(async () => {
      const replies: unknown[] = new Array(admissions.length);
      const outcomes = await Promise.all(
        [...byKey].map(async ([revisionKey, { indexes, calls }]) => {
          try {
            const reply = (await runScript(this.redis, scriptCall(revisionKey, calls))) as unknown[];
            indexes.forEach((index, at) => (replies[index] = reply[at]));
            return undefined;
          } catch (err) {
            const failure = err instanceof Error ? err : new Error(String(err));
            for (const index of indexes) replies[index] = failure;
            return failure;
          }
        }),
      );
      if (outcomes.every((outcome) => outcome instanceof Error)) throw outcomes[0];
      return replies;
    });
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
