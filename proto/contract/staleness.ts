// The contract's staleness flag, defined once ("Staleness flag: 45 minutes without a source write"):
// the events service sets an event's info.stale with it and the edge's /health `pipeline: stale`.

/** A source that has written nothing for this long is stale. */
export const STALE_AFTER_MS = 45 * 60_000;

/** Whether a source whose last write was at `lastWriteAtMs` is stale at `nowMs`. */
export function isStale(lastWriteAtMs: number, nowMs: number): boolean {
  return nowMs - lastWriteAtMs >= STALE_AFTER_MS;
}
