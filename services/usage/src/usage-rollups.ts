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
  /** Ids of the last batches added (newest last), so a re-sent batch is not added twice. */
  recentBatches?: string[];
}

/** Batch ids each rollup document remembers. */
const RECENT_BATCHES = 1_000;

function isDuplicateKey(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === 11000;
}

export const ROLLUP_INDEXES: Record<string, IndexDescription[]> = {
  usage_rollups: [{ key: { keyID: 1, period: 1, bucket: 1 }, name: "key_period_bucket" }],
};

export class UsageRollups {
  private readonly rollups: Collection<UsageRollupDocument>;

  constructor(db: Db) {
    this.rollups = db.collection<UsageRollupDocument>("usage_rollups");
  }

  /**
   * Adds one batch to the day and month rollups of the instant `atMs` (UTC), once: each rollup
   * document lists the ids of the last batches it took and the increment is conditional on the
   * id being absent, in the same single-document update (atomic without transactions). A batch
   * already applied matches nothing, so its upsert collides with the existing document (duplicate
   * _id), which is read as "already counted". The list keeps the last RECENT_BATCHES ids: a
   * re-sent batch arrives within a few flush intervals, far inside that window.
   */
  async record(batchID: string, keyID: string, atMs: number, requests: number, entities: number): Promise<void> {
    if (requests === 0 && entities === 0) return;
    const day = new Date(atMs).toISOString().slice(0, 10);
    const buckets = [
      { period: "day" as const, bucket: day },
      { period: "month" as const, bucket: day.slice(0, 7) },
    ];
    await Promise.all(
      buckets.map(async ({ period, bucket }) => {
        try {
          await this.rollups.updateOne(
            { _id: `${keyID}:${period}:${bucket}`, recentBatches: { $ne: batchID } },
            {
              $inc: { requests, entities },
              $setOnInsert: { keyID, period, bucket },
              $push: { recentBatches: { $each: [batchID], $slice: -RECENT_BATCHES } },
            },
            { upsert: true },
          );
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }),
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
