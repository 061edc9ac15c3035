import type { Logger } from "@odds/platform";

/**
 * The data version answers are cached under: the feed's last applied cycle, polled in the
 * background so a request never waits on it. While the feed cannot be read the version stays
 * where it was and the cache's max age alone bounds staleness.
 */
export class FeedVersion {
  private version = "0";
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly read: () => Promise<{ lastCycleAtMs: number }>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  current(): string {
    return this.version;
  }

  async refresh(): Promise<void> {
    try {
      const status = await this.read();
      this.version = String(status.lastCycleAtMs);
    } catch (err) {
      this.logger.debug({ err: { message: (err as Error).message } }, "feed version not read");
    }
  }

  start(): void {
    const tick = () => {
      void this.refresh().finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(tick, this.intervalMs);
        this.timer.unref();
      });
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
