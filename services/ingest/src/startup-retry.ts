import type { Logger } from "@odds/platform";
import { ExponentialBackoff, handleAll, retry } from "cockatiel";

/**
 * Runs a startup step until it succeeds or the process is asked to stop, with doubling backoff
 * (0.5 s up to 10 s) and every failure logged. Returns quietly once `signal` has fired.
 */
export async function retryUntilDone(
  logger: Logger,
  signal: AbortSignal,
  step: string,
  work: () => Promise<unknown>,
): Promise<void> {
  const policy = retry(handleAll, { backoff: new ExponentialBackoff({ initialDelay: 500, maxDelay: 10_000 }) });
  policy.onRetry((event) => {
    if ("error" in event)
      logger.error({ err: event.error, step, attempt: event.attempt }, "startup step failed; retrying");
  });
  try {
    await policy.execute(async () => {
      if (!signal.aborted) await work();
    }, signal);
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}
