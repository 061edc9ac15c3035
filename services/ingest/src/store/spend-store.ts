// Ingest's own collection: what each real source spent of its plan per period (see SpendAllowance).
// One document per (source, period); every change is one atomic $inc, so concurrent writers add up.
import type { Db } from "mongodb";
import type { PeriodSpend, SpendLedger } from "../sources/spend/allowance";

interface SpendDoc {
  _id: string;
  sourceID: string;
  period: string;
  spent: number;
  planRemaining?: number;
  updatedAt: Date;
}

export class SpendStore implements SpendLedger {
  constructor(private readonly db: Db) {}

  private get spend() {
    return this.db.collection<SpendDoc>("plan_spend");
  }

  async read(sourceID: string, period: string): Promise<PeriodSpend> {
    const doc = await this.spend.findOne({ _id: `${sourceID}|${period}` });
    return { spent: doc?.spent ?? 0, planRemaining: doc?.planRemaining };
  }

  async add(sourceID: string, period: string, amount: number, planRemaining?: number): Promise<PeriodSpend> {
    const doc = await this.spend.findOneAndUpdate(
      { _id: `${sourceID}|${period}` },
      {
        $inc: { spent: amount },
        $set: { sourceID, period, updatedAt: new Date(), ...(planRemaining === undefined ? {} : { planRemaining }) },
      },
      { upsert: true, returnDocument: "after" },
    );
    return { spent: doc?.spent ?? amount, planRemaining: doc?.planRemaining };
  }
}
