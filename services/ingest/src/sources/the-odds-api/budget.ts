// The Odds API bills credits per request (markets x regions). The budget spends at most the
// configured credits per UTC day and never more than the plan has left (x-requests-remaining).
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

export class DailyBudget {
  private day = "";
  private spentToday = 0;
  private planRemaining = Number.POSITIVE_INFINITY;

  constructor(private readonly dailyCredits: number) {}

  /** Credits spent today (UTC) as the API reported them. */
  spent(now: Date): number {
    this.roll(now);
    return this.spentToday;
  }

  /** Whether a request costing at most `cost` may be made now, leaving `reserve` of today's budget. */
  allows(now: Date, cost: number, reserve = 0): boolean {
    this.roll(now);
    return this.spentToday + cost + reserve <= this.dailyCredits && cost <= this.planRemaining;
  }

  /** Credits to keep for nearer events before polling one `msToKickoff` away. */
  reserveFor(msToKickoff: number): number {
    const share = Math.min(1, Math.max(0, msToKickoff) / FAR_HORIZON_MS);
    return Math.floor(this.dailyCredits * FAR_RESERVE_SHARE * share);
  }

  /** Books a successful answer's cost: x-requests-last, else the estimate. */
  record(now: Date, headers: Headers, estimate: number): void {
    this.roll(now);
    const last = Number(headers.get("x-requests-last"));
    this.spentToday += headers.has("x-requests-last") && Number.isFinite(last) ? last : estimate;
  }

  /** The plan's remaining credits, from any answer that reports them (refusals included). */
  observePlan(headers: Headers): void {
    const remaining = Number(headers.get("x-requests-remaining"));
    if (headers.has("x-requests-remaining") && Number.isFinite(remaining)) this.planRemaining = remaining;
  }

  private roll(now: Date): void {
    const day = now.toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.spentToday = 0;
    }
  }
}

/** How often an event `msToKickoff` away is polled; started events use the first step. */
export function pollingInterval(steps: readonly PollingStep[], msToKickoff: number): number {
  const sorted = [...steps].sort((a, b) => a.withinMs - b.withinMs);
  for (const step of sorted) if (msToKickoff <= step.withinMs) return step.everyMs;
  return sorted.at(-1)?.everyMs ?? 0;
}
