// The Odds API bills credits per request (markets x regions). The source spends at most the
// configured credits per UTC day and never more than the plan has left (x-requests-remaining),
// through a SpendAllowance kept in the ingest store (a restart does not spend the day again).
// Far-off events need more of the day's budget left before they are polled, so when credits run
// low their polling stops first and the near ones keep going.

export interface PollingStep {
  /** Events kicking off within this... */
  withinMs: number;
  /** ...are polled at most this often (0 = every cycle). */
  everyMs: number;
}

/** Share of the daily budget that must remain before the farthest events are polled. */
const FAR_RESERVE_SHARE = 0.5;
/** Events this far off (or farther) need the whole FAR_RESERVE_SHARE left. */
const FAR_HORIZON_MS = 7 * 24 * 3_600_000;

/** Credits of a `dailyCredits` budget kept for nearer events before polling one `msToKickoff` away. */
export function farReserve(dailyCredits: number, msToKickoff: number): number {
  const share = Math.min(1, Math.max(0, msToKickoff) / FAR_HORIZON_MS);
  return Math.floor(dailyCredits * FAR_RESERVE_SHARE * share);
}

/** How often an event `msToKickoff` away is polled; started events use the first step. */
export function pollingInterval(steps: readonly PollingStep[], msToKickoff: number): number {
  const sorted = [...steps].sort((a, b) => a.withinMs - b.withinMs);
  for (const step of sorted) if (msToKickoff <= step.withinMs) return step.everyMs;
  return sorted.at(-1)?.everyMs ?? 0;
}
