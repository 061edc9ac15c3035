import { bulkhead, BulkheadRejectedError, type BulkheadPolicy } from "cockatiel";
import { ApiError } from "./errors";

/** When every slot and queue place is taken, a client is told to come back after this long. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Bounds how many heavy pages (multi-megabyte answers, such as 10,000 markets) one edge has in
 * flight at once. Each holds its downstream answer and its envelope in memory while it is sent, and
 * the service building it is the same one that answers every small read: past a few at a time,
 * more only add memory and make every call (small ones included) wait. Pages beyond the slots
 * wait in a bounded queue; past that, the answer is 429 with Retry-After, at once, rather than a
 * request that times out after seconds.
 */
export class HeavyPages {
  private readonly policy: BulkheadPolicy;

  constructor(
    readonly slots: number,
    readonly queue: number,
    private readonly what: string,
  ) {
    this.policy = bulkhead(slots, queue);
  }

  async run<T>(load: () => Promise<T>): Promise<T> {
    try {
      return await this.policy.execute(load);
    } catch (err) {
      if (!(err instanceof BulkheadRejectedError)) throw err;
      throw new ApiError(
        429,
        "Rate limit exceeded",
        `too many ${this.what} in flight on this server; retry after ${RETRY_AFTER_SECONDS} s`,
        { "Retry-After": String(RETRY_AFTER_SECONDS) },
      );
    }
  }
}
