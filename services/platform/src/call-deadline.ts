import { TaskCancelledError, TimeoutStrategy, timeout } from "cockatiel";
import type { StoreCallPolicy } from "./store-calls";

/**
 * A deadline alone, for calls that must answer in time but have no breaker of their own (a tier
 * read inside one request, a health probe). Aggressive: the caller gets its answer at the deadline
 * even when the call never settles, and the call's AbortSignal fires.
 */
export function callDeadline(timeoutMs: number): StoreCallPolicy {
  const policy = timeout(timeoutMs, TimeoutStrategy.Aggressive);
  // A signal per call: without one cockatiel hangs every call's listener on one shared signal.
  return { execute: (call) => policy.execute(call, new AbortController().signal) };
}

/** True when a call was abandoned at its deadline. */
export function isDeadlinePassed(err: unknown): boolean {
  return err instanceof TaskCancelledError;
}
