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
