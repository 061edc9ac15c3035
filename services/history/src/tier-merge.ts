import { tierReadSeconds } from "./metrics";
import { compareTicks } from "./tick-buckets";
import type { TickCursor, TickPosition, TierName } from "./tick-tier";
import type { TickDocument } from "./ticks";

export const ARCHIVE_DOWN_NOTICE =
  "The archive tier did not answer in time: this series is incomplete at its old end (ticks older than about 28 days are missing).";
export const ARCHIVE_STOPPED_NOTICE =
  "The archive tier stopped answering during this request: the page ends early; continue with nextCursor.";

export interface MergedPage {
  items: TickDocument[];
  /** The last position consumed when the page ended before the streams did; undefined on the last page. */
  stoppedAt?: TickPosition;
  /** Empty unless the archive stopped answering. */
  notice: string;
}

/**
 * Merges the live and archive streams in history order (changedAt, tick id) into one page of at
 * most `limit` ticks the oddID filter keeps. A tick present in both tiers (mid-archive) is taken
 * once. The page stops at the last position consumed, so everything at or before it has been
 * seen in both tiers (for a capped read, possibly one the filter skipped). An archive that fails
 * before anything was consumed is left out (the series is incomplete at its old end); one that
 * fails later ends the page there.
 */
export async function mergeTiers(
  live: TierStream,
  archive: TierStream | undefined,
  limit: number,
  keeps: (oddID: string) => boolean,
): Promise<MergedPage> {
  const page: MergedPage = { items: [], notice: "" };
  let consumed: TickPosition | undefined;
  // Both tiers' first reads go out together; the loop then waits on the same reads.
  void archive?.peek().catch(() => undefined);
  try {
    for (;;) {
      const liveHead = await live.peek();
      let archiveHead: TickDocument | undefined;
      if (archive) {
        try {
          archiveHead = await archive.peek();
        } catch {
          archive.close();
          archive = undefined;
          if (consumed === undefined) {
            page.notice = ARCHIVE_DOWN_NOTICE;
            continue;
          }
          return { ...page, notice: ARCHIVE_STOPPED_NOTICE, stoppedAt: consumed };
        }
      }
      if (live.capped || archive?.capped) return { ...page, stoppedAt: consumed };
      const next = earliest(liveHead, archiveHead);
      if (!next) return page;
      if (liveHead?._id === next._id) live.shift();
      if (archiveHead?._id === next._id) archive?.shift();
      if (keeps(next.oddID)) {
        if (page.items.length === limit) return { ...page, stoppedAt: consumed };
        page.items.push(next);
      }
      consumed = { at: next.changedAt.getTime(), id: next._id };
    }
  } finally {
    live.close();
    archive?.close();
  }
}

/** One tier's ticks of the window as a sorted stream with a one-tick lookahead and a read cap. */
export class TierStream {
  private head: TickDocument | undefined;
  private loaded = false;
  private pending: Promise<TickDocument | undefined> | undefined;
  private reads = 0;
  private exhausted = false;
  private readSeconds = 0;
  private failed = false;
  private closed = false;

  constructor(
    private readonly tier: TierName,
    private readonly cursor: TickCursor,
    private readonly cap: number,
    private readonly guard: (next: () => Promise<TickDocument | null>) => Promise<TickDocument | null>,
  ) {}

  /** True once the cap was reached and every tick read was consumed: the tier may hold more. */
  get capped(): boolean {
    return this.exhausted && this.reads >= this.cap;
  }

  /** The next tick without consuming it; concurrent calls share one read. */
  peek(): Promise<TickDocument | undefined> {
    this.pending ??= this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<TickDocument | undefined> {
    if (!this.loaded && !this.exhausted) {
      const started = process.hrtime.bigint();
      let next: TickDocument | null;
      try {
        // Only a read that goes to the store needs the deadline; most come from the cursor's batch.
        next = this.cursor.bufferedCount() > 0 ? await this.cursor.next() : await this.guard(() => this.cursor.next());
      } catch (err) {
        this.failed = true;
        throw err;
      } finally {
        this.readSeconds += Number(process.hrtime.bigint() - started) / 1e9;
      }
      this.loaded = true;
      if (next) {
        this.head = next;
        this.reads += 1;
      } else {
        this.exhausted = true;
      }
    }
    return this.head;
  }

  shift(): void {
    this.head = undefined;
    this.loaded = false;
  }

  /** Records the time this request spent reading the tier, and releases its cursor (once). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    tierReadSeconds.observe({ tier: this.tier, outcome: this.failed ? "unavailable" : "ok" }, this.readSeconds);
    void this.cursor.close().catch(() => undefined);
  }
}

function earliest(a: TickDocument | undefined, b: TickDocument | undefined): TickDocument | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareTicks(a, b) <= 0 ? a : b;
}
