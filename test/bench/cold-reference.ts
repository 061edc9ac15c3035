// What a cold window is compared with: the bare server answering a sample of the very requests the window
// sent, so a cold row has the machine's limit beside it as a hot row does.

/** Answers a cold window's bare server holds: about 100 MB for the 1.7 MB pages of 50 events. */
export const COLD_SAMPLE_SIZE = 64;

/**
 * Indices into a cold case's `total` paths of up to `size` of the `sent` requests a window sent from
 * `first` on (wrapping past the end), spread evenly over them and distinct: the answers whose mix of sizes
 * the bare server then serves.
 */
export function coldSample(first: number, sent: number, total: number, size = COLD_SAMPLE_SIZE): number[] {
  const span = Math.min(sent, total);
  const count = Math.min(size, span);
  return Array.from({ length: count }, (_, i) => (first + Math.floor((i * span) / count)) % total);
}

/**
 * Where a cold case's next window begins: after the last request this one sent. Starting each window at
 * the first path again would ask, at 16 connections, what the window at 1 had asked seconds before: answers
 * kept past their max age, which a source that tags its pages renews without sending them again.
 */
export function nextFirstPath(first: number, sent: number, total: number): number {
  return total === 0 ? 0 : (first + sent) % total;
}
