/** The value `p` percent of the way up `sorted` (ascending): 50 its median, 99 its p99; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
