import type { Collection, Db, IndexDescription } from "mongodb";

/** Served requests and entities per key per UTC day and calendar month (billing and reporting). */
export interface UsageRollup {
  keyID: string;
  period: "day" | "month";
  /** 2026-11-21 for a day, 2026-11 for a month. */
  bucket: string;
  requests: number;
  entities: number;
}

interface UsageRollupDocument extends UsageRollup {
  _id: string;
}

export const ROLLUP_INDEXES: Record<string, IndexDescription[]> = {
  usage_rollups: [{ key: { keyID: 1, period: 1, bucket: 1 }, name: "key_period_bucket" }],
};

export class UsageRollups {
  private readonly rollups: Collection<UsageRollupDocument>;

  constructor(db: Db) {
    this.rollups = db.collection<UsageRollupDocument>("usage_rollups");
  }

  /** Adds to the day and month rollups of the instant `atMs` (UTC). */
  async record(keyID: string, atMs: number, requests: number, entities: number): Promise<void> {
    if (requests === 0 && entities === 0) return;
    const day = new Date(atMs).toISOString().slice(0, 10);
    const buckets = [
      { period: "day" as const, bucket: day },
      { period: "month" as const, bucket: day.slice(0, 7) },
    ];
    await this.rollups.bulkWrite(
      buckets.map(({ period, bucket }) => ({
        updateOne: {
          filter: { _id: `${keyID}:${period}:${bucket}` },
          update: { $inc: { requests, entities }, $setOnInsert: { keyID, period, bucket } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  async forKey(keyID: string): Promise<UsageRollup[]> {
    const docs = await this.rollups.find({ keyID }).sort({ period: 1, bucket: 1 }).toArray();
    return docs.map(({ keyID: id, period, bucket, requests, entities }) => ({
      keyID: id,
      period,
      bucket,
      requests,
      entities,
    }));
  }
}
