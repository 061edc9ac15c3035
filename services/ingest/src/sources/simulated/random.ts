// Deterministic randomness: every value is a pure function of the seed and its keys, so the
// feed at a given instant is the same on every run and every restart.

const FNV_OFFSET = 0x811c9dc5;

/**
 * The FNV-1a state after `text`, continuing from `state`: hash32(a + b) is
 * hash32From(fnvState(a), b), so a key's shared prefix is hashed once for many keys.
 */
export function fnvState(text: string, state = FNV_OFFSET): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** 32-bit FNV-1a of a string, finalised with murmur3's mixer. */
export function hash32(text: string): number {
  return hash32From(FNV_OFFSET, text);
}

/** hash32 of (the text that led to `state`) + `text`. */
export function hash32From(state: number, text: string): number {
  let h = fnvState(text, state);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Uniform in [0, 1) for a precomputed key hash and an integer (hot loops over time slots). */
export function unitOf(keyHash: number, n: number): number {
  let h = (keyHash ^ Math.imul(n | 0, 0x9e3779b1) ^ Math.imul(Math.floor(n / 4294967296), 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/**
 * Uniform in [0, 1) for the given keys: hash32 of the keys joined by `|`, hashed key by key without
 * building the joined text (the simulated feed draws millions a cycle).
 */
export function unit(...keys: Array<string | number>): number {
  let state = FNV_OFFSET;
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) state = fnvState("|", state);
    const key = keys[i] as string | number;
    state = fnvState(typeof key === "string" ? key : String(key), state);
  }
  return hash32From(state, "") / 4294967296;
}

/** Standard normal for the given keys (Box-Muller on two hashed uniforms). */
export function normal(...keys: Array<string | number>): number {
  const u1 = Math.max(unit(...keys, "n1"), 1e-12);
  const u2 = unit(...keys, "n2");
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Poisson draw with mean `lambda` (inversion; lambda is small here). */
export function poisson(lambda: number, ...keys: Array<string | number>): number {
  const u = unit(...keys, "poisson");
  let k = 0;
  let term = Math.exp(-lambda);
  let cumulative = term;
  while (u > cumulative && k < 50) {
    k += 1;
    term *= lambda / k;
    cumulative += term;
  }
  return k;
}

/**
 * Smooth random drift in about [-1, 1] over time: three octaves of value noise. Consecutive
 * instants are correlated, so prices wander like a random walk but stay reproducible.
 */
export function drift(timeMs: number, scaleMs: number, ...keys: Array<string | number>): number {
  let total = 0;
  let amplitude = 0.6;
  let scale = scaleMs;
  for (let octave = 0; octave < 3; octave++) {
    const x = timeMs / scale;
    const i = Math.floor(x);
    const f = x - i;
    const smooth = f * f * (3 - 2 * f);
    const a = unit(...keys, octave, i) * 2 - 1;
    const b = unit(...keys, octave, i + 1) * 2 - 1;
    total += amplitude * (a + (b - a) * smooth);
    amplitude /= 2;
    scale /= 3;
  }
  return total;
}

/** Standard normal cumulative distribution (Abramowitz-Stegun 7.1.26). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x / Math.SQRT2));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}
