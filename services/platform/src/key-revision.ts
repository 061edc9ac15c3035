import { randomUUID } from "node:crypto";
import { callDeadline } from "./call-deadline";
import type { Logger } from "./logger";
import type { RedisClient } from "./redis";
import type { StoreCallPolicy } from "./store-calls";

/**
 * The Redis key holding an API key's revision: a random token the usage service writes after every
 * change of that key's record (created, activated, deactivated), and the edge's admission script
 * reads with the key's rate-limit windows. An edge whose grant was looked up under the token the
 * admission returns knows the grant is as current as a fresh lookup, without making one; another
 * token means the record changed since. A token, not a counter: a Redis that lost its data reads as
 * "no token", which differs from any token written before.
 * The hash tag `{keyID}` puts it in the Redis Cluster slot of the key's windows, so one script reads both.
 */
export function keyRevisionKey(keyID: string): string {
  return `keys:{${keyID}}:revision`;
}

/** How long a revision token is kept: far past any cached grant (edges look keys up again every few seconds). */
export const KEY_REVISION_TTL_MS = 24 * 60 * 60 * 1000;

/** Redis answers in well under a millisecond; past this it is stalled, and the change stands without its revision. */
export const KEY_REVISION_TIMEOUT_MS = 1_000;

/**
 * Tells the edges that a key's record changed: a new random revision token in Redis (see
 * `keyRevisionKey`), written after the record's change is stored. An edge then looks the key up
 * again on its next request instead of at the end of its grant cache's few seconds, and
 * `/account/usage` reads the record fresh only when its token moved.
 * A write that fails (Redis down or past the deadline) is logged and the change stands: edges
 * still see it within their grant cache's lifetime (`PLAN_CACHE_TTL_MS`), as without tokens.
 */
export class KeyRevisions {
  private readonly deadline: StoreCallPolicy;

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Logger,
    /** Counts the writes that failed (a service's metric). */
    private readonly options: { failures?: { inc(): void } } = {},
  ) {
    this.deadline = callDeadline(KEY_REVISION_TIMEOUT_MS);
  }

  async changed(keyID: string): Promise<void> {
    try {
      await this.deadline.execute(({ signal }) =>
        this.redis
          .withAbortSignal(signal)
          .set(keyRevisionKey(keyID), randomUUID(), { expiration: { type: "PX", value: KEY_REVISION_TTL_MS } }),
      );
    } catch (err) {
      this.options.failures?.inc();
      this.logger.warn(
        { keyID, err: { message: (err as Error).message } },
        "key changed, but its revision could not be written: edges see the change when their grant cache expires",
      );
    }
  }
}
