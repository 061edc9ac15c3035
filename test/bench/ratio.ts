import type { LoadResult } from "./load-worker";

/**
 * The API's throughput over a reference's (the bare server, or the bare server behind the Redis
 * call). None where either side completed nothing (0 would read as "measured, and slow"), nor where
 * the reference answered anything but 2xx: a reference that failed is not the limit it stands for.
 */
export function ratioTo(api: LoadResult, reference: LoadResult | undefined): number | undefined {
  if (!reference || api.requests === 0 || reference.requests === 0 || reference.non2xx > 0) return undefined;
  return api.requestsPerSecond / reference.requestsPerSecond;
}

/** What the report says beside a reference that answered other than 2xx. */
export function referenceFailures(reference: LoadResult): string {
  return reference.non2xx > 0 ? ` (${reference.non2xx} answers not 2xx: no ratio)` : "";
}
