import { callDeadline, storeCallPolicy, type StoreCallLimits, type StoreCallPolicy } from "@odds/platform";
import type { RedisClient } from "../../ratelimit/rate-limiter";

/**
 * Open streams per key, shared by every edge replica through Redis: each open stream holds a lease
 * (a member of the key's sorted set, scored by its expiry) renewed while it lives and removed when
 * it closes. A replica that dies leaves leases that expire after `leaseMs`, so a key is never
 * locked out by streams nobody serves. Every call has the Redis deadline: a hung Redis fails a call
 * at its deadline instead of holding a stream's opening or heartbeat. Acquires and renewals are
 * inside a breaker too; releases are not, so one is always sent after the acquire it undoes (a
 * breaker opened in between would leave a slot that Redis applies on resuming held for `leaseMs`).
 */
const ACQUIRE = `
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[1])
if redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call("ZADD", KEYS[1], ARGV[2], ARGV[4])
redis.call("PEXPIREAT", KEYS[1], ARGV[2])
return 1
`;
const RENEW = `
if redis.call("ZSCORE", KEYS[1], ARGV[2]) then
  redis.call("ZADD", KEYS[1], ARGV[1], ARGV[2])
  redis.call("PEXPIREAT", KEYS[1], ARGV[1])
end
return 1
`;

export class StreamLeases {
  private readonly calls: StoreCallPolicy;
  private readonly releases: StoreCallPolicy;

  constructor(
    private readonly redis: RedisClient,
    private readonly leaseMs: number,
    limits: StoreCallLimits,
    private readonly prefix = "streams",
  ) {
    this.calls = storeCallPolicy(limits);
    this.releases = callDeadline(limits.timeoutMs);
  }

  /** Takes one of the key's `max` stream slots for `streamID`; false when all are held. */
  async acquire(keyID: string, streamID: string, max: number, nowMs = Date.now()): Promise<boolean> {
    const reply = await this.command((redis) =>
      redis.eval(ACQUIRE, {
        keys: [this.keyOf(keyID)],
        arguments: [String(nowMs), String(nowMs + this.leaseMs), String(max), streamID],
      }),
    );
    return Number(reply) === 1;
  }

  /** Extends the lease of a stream that is still open. */
  async renew(keyID: string, streamID: string, nowMs = Date.now()): Promise<void> {
    await this.command((redis) =>
      redis.eval(RENEW, {
        keys: [this.keyOf(keyID)],
        arguments: [String(nowMs + this.leaseMs), streamID],
      }),
    );
  }

  async release(keyID: string, streamID: string): Promise<void> {
    await this.command((redis) => redis.zRem(this.keyOf(keyID), streamID), this.releases);
  }

  /** One command under `policy`, on a client that drops it if still unsent at the deadline. */
  private command<T>(send: (redis: RedisClient) => Promise<T>, policy = this.calls): Promise<T> {
    return policy.execute(({ signal }) => send(this.redis.withAbortSignal(signal)));
  }

  private keyOf(keyID: string): string {
    // keyID is already a digest of the key; the hash tag keeps a key's set in one Redis Cluster slot.
    return `${this.prefix}:{${keyID}}`;
  }
}
