import { createLogger, inSpan, loadConfigOrExit } from "@odds/platform";
import type { Logger } from "pino";
import { configSchema } from "./config";
import { ticksArchived } from "./metrics";
import type { EventDay, TickTier } from "./tick-tier";
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
 * tier, one batch at a time: copy (upsert by tick id) into the archive, THEN delete the
 * copied ids from live. A tick is therefore always in at least one tier; while it is in
 * both, readers merge the tiers and return it once. A crash between the two steps leaves
 * copies that the next run re-copies as no-ops and then deletes, so nothing is lost or doubled.
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

  /** Copy step of one batch of an event's day: the ids now held by both tiers (empty when done). */
  async copyBatch(eventDay: EventDay): Promise<string[]> {
    const batch = await this.live.ticksOfDay(eventDay, this.options.batchSize);
    // The archive notes its days too: the v1 history files list league-days across both tiers.
    if (batch.length > 0) await this.archive.noteDays([eventDay]);
    await this.archive.upsertTicks(batch);
    return batch.map((tick) => tick._id);
  }

  private async pass(): Promise<number> {
    const cutoff = this.cutoffDay();
    const days = (await this.live.listDays()).filter(({ day }) => day < cutoff);
    let moved = 0;
    for (const eventDay of days) {
      for (;;) {
        const ids = await this.copyBatch(eventDay);
        if (ids.length === 0) break;
        await this.live.deleteTicks(eventDay.eventID, ids);
        moved += ids.length;
        ticksArchived.inc(ids.length);
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
