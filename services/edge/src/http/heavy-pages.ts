import {
  bulkhead,
  BulkheadRejectedError,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
  type BulkheadPolicy,
  type TimeoutPolicy,
} from "cockatiel";
import { ApiError } from "./errors";

/** When every slot and queue place is taken, a client is told to come back after this long. */
const RETRY_AFTER_SECONDS = 1;

export interface HeavyPageLimits {
  /** Pages loaded at once. */
  slots: number;
  /** Pages that may wait for a slot; past them, 429 at once. */
  queue: number;
  /** Longest a page may take, its wait for a slot included; past it, 429 (its load, if begun, still holds its slot). */
  maxMs: number;
}

/**
 * Bounds how many heavy pages (multi-megabyte answers: events with all their odds, 10,000 markets)
 * one edge has in flight at once. Each holds its downstream answer and its envelope in memory while
 * it is sent, and the service building it is the same one that answers every small read: past a
 * few at a time, more only add memory and make every call (small ones included) wait. Pages beyond
 * the slots wait in a bounded queue for a bounded time; past either, the answer is 429 with
 * Retry-After rather than a request that hangs.
 */
export class HeavyPages {
  private readonly slots: BulkheadPolicy;
  private readonly deadline: TimeoutPolicy;

  constructor(
    readonly limits: HeavyPageLimits,
    private readonly what: string,
  ) {
    this.slots = bulkhead(limits.slots, limits.queue);
    // abortOnReturn off: the signal then says only that the time ran out.
    this.deadline = timeout(limits.maxMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
  }

  async run<T>(load: () => Promise<T>): Promise<T> {
    let ranOut: AbortSignal | undefined;
    try {
      return await this.deadline.execute(({ signal }) => {
        ranOut = signal;
        // The bulkhead is not handed the signal (a cancelled page it dequeues would not start the next
        // one): a page whose time ran out while it waited is dropped at its turn, its load never made.
        return this.slots.execute(() => (signal.aborted ? Promise.reject(new TaskCancelledError()) : load()));
      });
    } catch (err) {
      const refused = err instanceof BulkheadRejectedError || (err instanceof TaskCancelledError && ranOut?.aborted);
      if (!refused) throw err;
      throw new ApiError(
        429,
        "Rate limit exceeded",
        `too many ${this.what} in flight on this server; retry after ${RETRY_AFTER_SECONDS} s`,
        { "Retry-After": String(RETRY_AFTER_SECONDS) },
      );
    }
  }
}
