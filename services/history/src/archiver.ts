import { createLogger, inSpan, loadConfigOrExit } from "@odds/platform";
import type { Logger } from "pino";
import { configSchema } from "./config";
import { ticksArchived } from "./metrics";
import { decodeBucket } from "./tick-buckets";
import type { BucketVersion, EventDay, TickTier } from "./tick-tier";
import { DAY_MS, utcDay } from "./ticks";
import { connectHistoryStores } from "./tier-stores";

export interface ArchiverOptions {
  retentionDays: number;
  batchSize: number;
  logger: Logger;
  now?: () => number;
}

/**
 * Moves each event's whole UTC days older than the live retention from the live tier to the archive
 * tier, whole hour buckets at a time: merge the buckets' ticks into the archive (by tick id), THEN
 * delete each live bucket at the version copied. A tick is therefore always in at least one tier;
 * while it is in both, readers merge the tiers and return it once. A crash between the two steps
 * leaves copies that the next run re-copies as no-ops and then deletes; a bucket that took a late
 * tick after its copy is not deleted (its version moved) and is copied again, so nothing is lost or doubled.
 */
export class Archiver {
  private running: Promise<number> | undefined;

  constructor(
    private readonly live: TickTier,
    private readonly archive: TickTier,
    private readonly options: ArchiverOptions,
  ) {}

  /** Days strictly before this one are archived. */
  cutoffDay(): string {
    return utcDay((this.options.now ?? Date.now)() - this.options.retentionDays * DAY_MS);
  }

  /** One pass over every live day older than the retention; returns ticks moved. Overlapping calls share a pass. */
  runOnce(): Promise<number> {
    this.running ??= inSpan("history.archive", {}, () => this.pass()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no pass is in flight (for shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /**
   * Copy step of one batch of an event's day (whole buckets, about `batchSize` ticks): the bucket
   * versions now held by both tiers (empty when the day is done).
   */
  async copyBatch(eventDay: EventDay): Promise<BucketVersion[]> {
    const buckets = await this.live.bucketsOfDay(eventDay, this.options.batchSize);
    if (buckets.length === 0) return [];
    // The archive notes its days too: the v1 history files list league-days across both tiers.
    await this.archive.noteDays([eventDay]);
    await this.archive.upsertTicks(buckets.flatMap(decodeBucket));
    return buckets.map(({ _id, v, n }) => ({ _id, v, n }));
  }

  private async pass(): Promise<number> {
    const cutoff = this.cutoffDay();
    const days = (await this.live.listDays()).filter(({ day }) => day < cutoff);
    let moved = 0;
    for (const eventDay of days) {
      for (;;) {
        const copied = await this.copyBatch(eventDay);
        if (copied.length === 0) break;
        const deleted = await this.live.deleteBuckets(eventDay.eventID, copied);
        moved += deleted;
        ticksArchived.inc(deleted);
      }
      await this.live.forgetDayIfEmpty(eventDay);
    }
    if (moved > 0) this.options.logger.info({ moved, days: days.length, cutoff }, "archived ticks");
    return moved;
  }
}

/** CronJob entry point: `node dist/archiver.js` runs one pass and exits (1 on failure). */
async function runArchiverJob(): Promise<void> {
  const config = loadConfigOrExit(configSchema);
  const logger = createLogger("history-archiver", config.LOG_LEVEL);
  const stores = await connectHistoryStores(
    { live: config.HISTORY_LIVE_MONGODB_URI, archive: config.HISTORY_ARCHIVE_MONGODB_URI },
    logger,
    config.HISTORY_TICK_LAYOUT,
  );
  try {
    const archiver = new Archiver(stores.live, stores.archive, {
      retentionDays: config.HISTORY_LIVE_RETENTION_DAYS,
      batchSize: config.ARCHIVE_BATCH_SIZE,
      logger,
    });
    const moved = await archiver.runOnce();
    logger.info({ moved }, "archiver pass complete");
  } finally {
    await stores.close();
  }
}

if (require.main === module) {
  runArchiverJob().catch((err: unknown) => {
    process.stderr.write(`archiver failed: ${String(err)}\n`);
    process.exit(1);
  });
}
