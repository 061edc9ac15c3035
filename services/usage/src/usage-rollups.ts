import { InvalidArgumentError } from "@odds/platform";
import type { Collection, Db, Filter, IndexDescription, UpdateFilter } from "mongodb";

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
  /** senderID -> the number of the last batch of this key counted from that sender. */
  senders?: Record<string, number>;
  /** Ids of the last batches added (newest last) from senders that do not number them, so one re-sent is not added twice. */
  recentBatches?: string[];
}

/**
 * What makes a batch counted once: its sender and its number among the sender's batches of the key (a sender sends
 * a key's next batch only once the one before is acknowledged), or, from a sender that does not number its batches,
 * an id.
 */
export type BatchIdentity = { senderID: string; sequence: number } | { batchID: string };

/** A sender id becomes a field name: no dots, no leading `$`. */
const SENDER_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
   * Adds one batch to the day and month rollups of the instant `atMs` (UTC), once. A numbered batch is added
   * only where the rollup's last number from its sender is below the batch's, and the same single-document update
   * records the number (atomic without transactions); each rollup holds one number per sender. A batch named by an
   * id instead is added only where the id is absent from the rollup's list of the last RECENT_BATCHES ids, which the
   * update extends (MongoDB keeps the list to that bound; FerretDB 1.24 ignores `$slice` in `$push`, so there the
   * list grows: only senders that do not number their batches, edges of an earlier release, still use it). Either
   * way a batch already added matches nothing, so its upsert collides with the existing document (duplicate _id),
   * which is read as "already counted".
   *
   * Numbers replaced the ids for the edge: FerretDB decodes and rewrites the whole rollup on every update, and a list
   * of 1,000 ids made the two updates of each key's batch, once a second, the shared FerretDB's largest cost
   * (docs/performance.md "Usage batches numbered").
   */
  async record(batch: BatchIdentity, keyID: string, atMs: number, requests: number, entities: number): Promise<void> {
    if (requests === 0 && entities === 0) return;
    if ("senderID" in batch) {
      if (!SENDER_ID.test(batch.senderID))
        throw new InvalidArgumentError("sender_id", "must be 1 to 64 letters, digits, '-' or '_'");
      if (!Number.isSafeInteger(batch.sequence) || batch.sequence < 1)
        throw new InvalidArgumentError("sequence", "must be a whole number of 1 or more when sender_id is set");
    }
    const day = new Date(atMs).toISOString().slice(0, 10);
    const buckets = [
      { period: "day" as const, bucket: day },
      { period: "month" as const, bucket: day.slice(0, 7) },
    ];
    await Promise.all(
      buckets.map(async ({ period, bucket }) => {
        const _id = `${keyID}:${period}:${bucket}`;
        const counted: { filter: Filter<UsageRollupDocument>; update: UpdateFilter<UsageRollupDocument> } =
          "senderID" in batch
            ? {
                filter: { _id, [`senders.${batch.senderID}`]: { $not: { $gte: batch.sequence } } },
                update: { $set: { [`senders.${batch.senderID}`]: batch.sequence } },
              }
            : {
                filter: { _id, recentBatches: { $ne: batch.batchID } },
                update: { $push: { recentBatches: { $each: [batch.batchID], $slice: -RECENT_BATCHES } } },
              };
        try {
          await this.rollups.updateOne(
            counted.filter,
            { $inc: { requests, entities }, $setOnInsert: { keyID, period, bucket }, ...counted.update },
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
