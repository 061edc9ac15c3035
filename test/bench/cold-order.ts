/**
 * The cold cases' requests in a spread order: the i-th is item (i x step) mod n, with a step near
 * n / golden ratio and prime to n. Any run of consecutive requests, however short, then samples the
 * whole list evenly (the three-distance theorem), so what a window of load measures does not depend
 * on how many requests it managed: walking events in serving order, a faster stack reached further
 * into the priced events and measured bigger pages.
 */
export function spreadOrder<T>(items: readonly T[]): T[] {
  const n = items.length;
  if (n < 3) return [...items];
  let step = Math.round(n / GOLDEN_RATIO);
  while (gcd(step, n) !== 1) step += 1;
  return Array.from({ length: n }, (_, i) => items[(i * step) % n] as T);
}

const GOLDEN_RATIO = (1 + Math.sqrt(5)) / 2;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Up to `count` cold requests, round by round: every item's first variant (items in spread order),
 * then every second variant of the items that have one, and so on. Distinct variants make distinct
 * requests, so none repeats within the list: a repeat within the answer cache's max age would be a
 * hit, not a miss. `variants` says how many an item has; `request` makes its k-th (from 0).
 */
export function variantRounds<T>(
  items: readonly T[],
  variants: (item: T) => number,
  request: (item: T, k: number) => string,
  count: number,
): string[] {
  const spread = spreadOrder(items);
  const requests: string[] = [];
  for (let k = 0; requests.length < count; k++) {
    const round = spread.filter((item) => variants(item) > k);
    if (round.length === 0) break;
    for (const item of round.slice(0, count - requests.length)) requests.push(request(item, k));
  }
  return requests;
}
