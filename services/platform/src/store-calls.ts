import { BrokenCircuitError, ConsecutiveBreaker, TaskCancelledError, circuitBreaker, handleAll, wrap } from "cockatiel";
import { deadlinePolicy } from "./call-deadline";

/** How long one call to a store may take, and when to stop trying a store that keeps failing. */
export interface StoreCallLimits {
  /** A call not answered within this is abandoned (a hung store is as good as a dead one). */
  timeoutMs: number;
  /** Consecutive failures after which calls fail at once, without reaching the store. */
  breakAfterFailures: number;
  /** How long the breaker stays open before one call probes the store again. */
  probeAfterMs: number;
}

/** Runs one store call under the policy; the call should pass `signal` on to its driver. */
export interface StoreCallPolicy {
  execute<T>(call: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T>;
}

/**
 * A deadline on every call (aggressive: the caller gets its answer at the deadline even when the
 * store never replies, and the call's AbortSignal fires) inside a circuit breaker, so a stopped or
 * hung store costs each request at most one deadline, and nothing once the breaker is open.
 */
export function storeCallPolicy(limits: StoreCallLimits): StoreCallPolicy {
  const breaker = circuitBreaker(handleAll, {
    halfOpenAfter: limits.probeAfterMs,
    breaker: new ConsecutiveBreaker(limits.breakAfterFailures),
  });
  const policy = wrap(breaker, deadlinePolicy(limits.timeoutMs));
  // A signal per call: without one cockatiel hangs every call's listener on one shared signal.
  return { execute: (call) => policy.execute(call, new AbortController().signal) };
}

/** True when a store call failed because the store was not answering (deadline passed or breaker open). */
export function isStoreUnanswered(err: unknown): boolean {
  return err instanceof TaskCancelledError || err instanceof BrokenCircuitError;
}
