import { createClient } from "redis";

export type RedisClient = ReturnType<typeof createClient>;

/**
 * A service's Redis client. Commands fail at once while Redis is down (no offline queue), so every
 * caller decides for itself what a missing Redis means (the rate limiter fails open or closed; a key
 * change stands without its revision); the client reconnects with backoff. Connecting is the caller's
 * `connect()`, whose failure is not fatal: the client keeps trying.
 */
export function createRedisClient(url: string): RedisClient {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
}
