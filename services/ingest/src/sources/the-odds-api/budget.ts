// The Odds API bills credits per request (markets x regions). The source spends at most the
// configured credits per UTC day and never more than the plan has left (x-requests-remaining),
// through a SpendAllowance kept in the ingest store (a restart does not spend the day again).
// As the day's credits run low, far-off events are polled less often (their interval stretched),
// and they need more of the budget left before they are polled at all: so their polling slows and
// then stops first, while the near ones keep going.

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

/**
 * How often an event `msToKickoff` away is polled, with `leftShare` of the day's budget left (0..1);
 * started events use the first step. The step's interval is stretched by (1 / leftShare) raised to
 * the event's distance share (0 at kick-off, 1 at seven days): near events keep their rate, the
 * farthest slow down in proportion to what was spent (half the budget left: half as often).
 */
export function pollingInterval(steps: readonly PollingStep[], msToKickoff: number, leftShare = 1): number {
  const sorted = [...steps].sort((a, b) => a.withinMs - b.withinMs);
  const step = sorted.find((s) => msToKickoff <= s.withinMs) ?? sorted.at(-1);
  const distanceShare = Math.min(1, Math.max(0, msToKickoff) / FAR_HORIZON_MS);
  const stretch = (1 / Math.max(MIN_LEFT_SHARE, Math.min(1, leftShare))) ** distanceShare;
  return Math.round((step?.everyMs ?? 0) * stretch);
}

/** Below this share left the stretch stops growing (the far reserve has stopped far-off polling by then). */
const MIN_LEFT_SHARE = 0.01;
