import type { LoadResult } from "./load-worker";

/**
 * Answers a second that were 2xx. A refusal is not a page served: past its slots and queue, a heavy page (10,000
 * markets, pages of events with all their odds) is answered 429 at once, and those fast refusals would otherwise
 * count as throughput.
 */
export function servedPerSecond(result: LoadResult): number {
  return result.requests === 0 ? 0 : (result.requestsPerSecond * (result.requests - result.non2xx)) / result.requests;
}

/**
 * The API's throughput over a reference's (the bare server, or the bare server behind the Redis
 * call): the API's 2xx answers a second (`servedPerSecond`) over the reference's answers a second.
 * None where either side completed nothing (0 would read as "measured, and slow"), nor where
 * the reference answered anything but 2xx: a reference that failed is not the limit it stands for.
 */
export function ratioTo(api: LoadResult, reference: LoadResult | undefined): number | undefined {
  if (!reference || api.requests === 0 || reference.requests === 0 || reference.non2xx > 0) return undefined;
  return servedPerSecond(api) / reference.requestsPerSecond;
}

/** What the report says beside a reference that answered other than 2xx. */
export function referenceFailures(reference: LoadResult): string {
  return reference.non2xx > 0 ? ` (${reference.non2xx} answers not 2xx: no ratio)` : "";
}

/** What the report says beside the API's figures when some of its answers were not 2xx. */
export function apiRefusals(api: LoadResult): string {
  return api.non2xx > 0 ? ` (${api.non2xx} of ${api.requests} answers not 2xx: its ratios count the 2xx only)` : "";
}
