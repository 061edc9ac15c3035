import { EventEmitter } from "node:events";
import type { Logger } from "@odds/platform";
import { ExponentialBackoff, handleAll, retry } from "cockatiel";

/** What the edge reads of each feed status the events service pushes. */
export interface PushedFeedStatus {
  lastCycleAtMs: number;
}

/** An open WatchFeedStatus call: its statuses as they come, and a way to end it. */
export interface FeedStatusWatch extends AsyncIterable<PushedFeedStatus> {
  cancel(): void;
}

/**
 * Backoff between attempts to open the watch, from the first to its cap: a replica's restart is
 * taken up in a few hundred ms, and a service down for long costs one attempt every 2 s.
 */
const REOPEN_BACKOFF_MS = { initial: 100, max: 2_000 } as const;

/**
 * The feed's last applied cycle, as the events service pushes it: the data version answers are
 * cached under, and what wakes the odds streams. It follows one WatchFeedStatus stream, opened again
 * with backoff whenever it ends or fails, so a request never waits on it and a new cycle is known
 * here as soon as the events service has it. While the watch is down the version stays where it
 * was, and the answer cache's max age alone bounds staleness.
 */
export class FeedVersion {
  private cycleAtMs = 0;
  private readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly stopped = new AbortController();
  private watch: FeedStatusWatch | undefined;
  private following: Promise<void> | undefined;

  constructor(
    private readonly open: () => FeedStatusWatch,
    private readonly logger: Logger,
  ) {}

  /** The data version answers are cached under ("0" before the first status). */
  current(): string {
    return String(this.cycleAtMs);
  }

  /** The last applied cycle's instant (Unix ms; 0 before the first status). */
  get lastCycleAtMs(): number {
    return this.cycleAtMs;
  }

  /** Calls `listener` with each new cycle instant; returns how to stop. */
  onChange(listener: (cycleAtMs: number) => void): () => void {
    this.changes.on("change", listener);
    return () => this.changes.off("change", listener);
  }

  start(): void {
    const policy = retry(handleAll, {
      backoff: new ExponentialBackoff({ initialDelay: REOPEN_BACKOFF_MS.initial, maxDelay: REOPEN_BACKOFF_MS.max }),
    });
    policy.onRetry((event) => {
      if (!("error" in event) || this.stopped.signal.aborted) return;
      // The first failure of a run is worth a warning; the attempts after it, while the service stays down, are not.
      const log = event.attempt === 1 ? this.logger.warn.bind(this.logger) : this.logger.debug.bind(this.logger);
      log({ err: { message: event.error.message }, attempt: event.attempt }, "feed status watch down; reopening it");
    });
    const follow = async (): Promise<void> => {
      // A watch that delivered and then ended (its replica stopping) is opened again at once, its backoff afresh.
      while (!this.stopped.signal.aborted) await policy.execute(() => this.followOnce(), this.stopped.signal);
    };
    this.following = follow().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    this.watch?.cancel();
    await this.following;
  }

  /** Follows one watch to its end: resolves if it delivered a status, else fails (and is retried after a backoff). */
  private async followOnce(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    const watch = this.open();
    this.watch = watch;
    let delivered = false;
    try {
      for await (const status of watch) {
        delivered = true;
        this.take(status.lastCycleAtMs);
      }
    } finally {
      this.watch = undefined;
    }
    if (!delivered && !this.stopped.signal.aborted) throw new Error("feed status watch ended before its first status");
  }

  private take(cycleAtMs: number): void {
    if (cycleAtMs === this.cycleAtMs) return;
    this.cycleAtMs = cycleAtMs;
    this.changes.emit("change", cycleAtMs);
  }
}
