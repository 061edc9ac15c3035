import type { Client } from "@grpc/grpc-js";
import { callDeadline, channelReady, type Logger } from "@odds/platform";
import type { RateLimiter, RedisClient } from "../ratelimit/rate-limiter";

/** Longest a new edge waits for its downstream before it listens anyway; well inside the startup probe's budget. */
export const WARM_UP_TIMEOUT_MS = 10_000;

export interface WarmUpParts {
  /** Every downstream client, by a name for the log. */
  channels: Record<string, Client>;
  redis: RedisClient;
  limiter: RateLimiter;
}

/**
 * What a new edge does before it listens: every downstream channel connected, Redis connected and the
 * rate-limit script loaded. Its readiness probe fails until it listens, so a rolling update sends no
 * request to a pod whose first key look-ups and admissions would pay for connecting (under load, past
 * their 1 s deadlines: a new pod answered 500 that way). Bounded: whatever is not reachable within
 * `timeoutMs` is logged and the edge listens anyway, degraded as /v2/health reports and as before.
 * Resolves with the names of the parts that were not warm in time.
 */
export async function warmUp(parts: WarmUpParts, logger: Logger, timeoutMs = WARM_UP_TIMEOUT_MS): Promise<string[]> {
  const deadline = callDeadline(timeoutMs);
  const steps: Array<[string, () => Promise<void>]> = [
    ...Object.entries(parts.channels).map(([name, client]): [string, () => Promise<void>] => [
      name,
      () => channelReady(client, timeoutMs),
    ]),
    [
      "redis",
      () =>
        deadline.execute(async ({ signal }) => {
          await redisReady(parts.redis, signal);
          await parts.limiter.loadScript();
        }),
    ],
  ];
  const results = await Promise.allSettled(steps.map(([, step]) => step()));
  const cold = steps.filter((_, index) => results[index]?.status === "rejected").map(([name]) => name);
  if (cold.length > 0) logger.warn({ cold, timeoutMs }, "edge listening before all of its downstream was reachable");
  return cold;
}

/** Resolves once the client is connected (its reconnect errors meanwhile are the limiter's to log). */
function redisReady(redis: RedisClient, signal: AbortSignal): Promise<void> {
  if (redis.isReady) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      redis.off("ready", onReady);
      reject(signal.reason as Error);
    };
    redis.once("ready", onReady);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
