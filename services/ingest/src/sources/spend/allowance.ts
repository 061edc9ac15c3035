// What a real source may still spend of its plan in the current period (a UTC day of credits, a
// calendar month of objects), kept in the ingest store so that a restart never spends it again.
// Every request's cost is reserved (written to the store) before the request is made and settled
// to the real cost after it, so a crash in between over-counts and never under-counts.

/** What a source spent in one period, as stored. */
export interface PeriodSpend {
  spent: number;
  /** The plan's remainder as the upstream last reported it (x-requests-remaining), where it does. */
  planRemaining?: number;
}

/** The store of what each source spent per period (implemented on MongoDB by SpendStore). */
export interface SpendLedger {
  read(sourceID: string, period: string): Promise<PeriodSpend>;
  /** Adds `amount` (negative gives back) and returns the stored total; sets planRemaining when given. */
  add(sourceID: string, period: string, amount: number, planRemaining?: number): Promise<PeriodSpend>;
}

export type SpendPeriod = "day" | "month";

/** The period key of an instant: 2026-11-23 for a UTC day, 2026-11 for a calendar month. */
export function periodOf(at: Date, period: SpendPeriod): string {
  return at.toISOString().slice(0, period === "day" ? 10 : 7);
}

export interface Reservation {
  period: string;
  amount: number;
}

export interface SpendAllowanceOptions {
  sourceID: string;
  period: SpendPeriod;
  /** Most the source may spend per period; Infinity = no limit. */
  limit: number;
  /** Required when there is a limit: without it a restart would forget what was spent. */
  ledger?: SpendLedger;
}

export class SpendAllowance {
  private period = "";
  private spentInPeriod = 0;
  private planRemaining = Number.POSITIVE_INFINITY;
  private planReported = false;

  constructor(private readonly options: SpendAllowanceOptions) {
    if (Number.isFinite(options.limit) && !options.ledger) {
      throw new Error(`source ${options.sourceID} has a plan limit: its spend must be kept in the ingest store`);
    }
  }

  /** Spent in the period last loaded (what the store holds, this process's reservations included). */
  get spent(): number {
    return this.spentInPeriod;
  }

  /** What may still be spent at `at`: the limit less what was spent, and never more than the plan has left. */
  async left(at: Date): Promise<number> {
    await this.load(at);
    return Math.min(this.options.limit - this.spentInPeriod, this.planRemaining);
  }

  /**
   * Reserves `amount` when it fits with `keep` still left after it (credits held back for other
   * requests); undefined when it does not. The reservation is stored before this resolves.
   * Throws when the store cannot answer (then nothing may be spent).
   */
  async reserve(at: Date, amount: number, keep = 0): Promise<Reservation | undefined> {
    await this.load(at);
    if (this.spentInPeriod + amount + keep > this.options.limit || amount > this.planRemaining) return undefined;
    const reservation = { period: this.period, amount };
    if (!this.options.ledger) {
      this.spentInPeriod += amount;
      return reservation;
    }
    const stored = await this.options.ledger.add(this.options.sourceID, this.period, amount);
    this.spentInPeriod = stored.spent;
    // Another process spent beside this one: what it took first wins.
    if (stored.spent > this.options.limit) {
      await this.settle(reservation, 0);
      return undefined;
    }
    return reservation;
  }

  /** Settles a reservation to what the request really cost (0 gives it all back). */
  async settle(reservation: Reservation, actual: number): Promise<void> {
    const delta = actual - reservation.amount;
    const planRemaining = this.planReported ? this.planRemaining : undefined;
    if (!this.options.ledger) {
      if (reservation.period === this.period) this.spentInPeriod += delta;
      return;
    }
    if (delta === 0 && planRemaining === undefined) return;
    const stored = await this.options.ledger.add(this.options.sourceID, reservation.period, delta, planRemaining);
    if (reservation.period === this.period) this.spentInPeriod = stored.spent;
  }

  /** The plan's remainder from an answer that reports it (refusals included). */
  observePlan(remaining: number): void {
    this.planRemaining = remaining;
    this.planReported = true;
  }

  /** Reads the period's spend from the store when a new period starts (and at the first request). */
  private async load(at: Date): Promise<void> {
    const period = periodOf(at, this.options.period);
    if (period === this.period) return;
    const stored = this.options.ledger ? await this.options.ledger.read(this.options.sourceID, period) : { spent: 0 };
    this.period = period;
    this.spentInPeriod = stored.spent;
    if (stored.planRemaining !== undefined && !this.planReported) this.planRemaining = stored.planRemaining;
  }
}
