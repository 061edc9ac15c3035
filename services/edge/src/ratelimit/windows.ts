import { objects } from "@odds/proto";

/** The rate-limit windows of the contract (defined with AccountUsage), each a fixed UTC period. */
export const RATE_WINDOWS = objects.RATE_WINDOWS;
export type RateWindow = objects.RateWindow;

export interface WindowSpan {
  window: RateWindow;
  /** Inclusive start and exclusive end, Unix milliseconds. */
  startMs: number;
  endMs: number;
}

const FIXED_LENGTH_MS: Record<Exclude<RateWindow, "per-month">, number> = {
  "per-second": 1_000,
  "per-minute": 60_000,
  "per-hour": 3_600_000,
  "per-day": 86_400_000,
};

/** The window of the given kind containing `nowMs`: second, minute, hour, UTC day or calendar month (UTC). */
export function windowAt(window: RateWindow, nowMs: number): WindowSpan {
  if (window === "per-month") {
    const now = new Date(nowMs);
    const startMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const endMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    return { window, startMs, endMs };
  }
  const length = FIXED_LENGTH_MS[window];
  const startMs = Math.floor(nowMs / length) * length;
  return { window, startMs, endMs: startMs + length };
}

/** Whole seconds until the window resets, never 0 (a client retrying at once would be refused again). */
export function secondsUntilReset(span: WindowSpan, nowMs: number): number {
  return Math.max(1, Math.ceil((span.endMs - nowMs) / 1000));
}
