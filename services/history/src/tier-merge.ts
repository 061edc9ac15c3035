import { compareTicks } from "./tick-buckets";
import type { TickCursor, TickPosition } from "./tick-tier";
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
 * seen in both tiers (for a capped read, possibly one the filter skipped). An archive whose ticks
 * cannot be read before anything was consumed is left out (the series is incomplete at its old
 * end); one that fails later ends the page there.
 *
 * Synchronous: a window's buckets are read from the stores before the merge (`WindowPlan`), so the
 * streams only inflate them. (It awaited each tick, five promises or so apiece: 0.6 µs a tick in one
 * process, and with the garbage they made 1.6-4.5 ms of a cold page's 11-14 ms in the history
 * service; docs/performance.md "History pages merged without a promise per tick".)
 */
export function mergeTiers(
  live: TierStream,
  archive: TierStream | undefined,
  limit: number,
  keeps: (oddID: string) => boolean,
): MergedPage {
  const page: MergedPage = { items: [], notice: "" };
  let consumed: TickPosition | undefined;
  for (;;) {
    const liveHead = live.peek();
    let archiveHead: TickDocument | undefined;
    if (archive) {
      try {
        archiveHead = archive.peek();
      } catch {
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
}

/** One tier's ticks of the window as a sorted stream with a one-tick lookahead and a read cap. */
export class TierStream {
  private head: TickDocument | undefined;
  private loaded = false;
  private reads = 0;
  private exhausted = false;

  constructor(
    private readonly cursor: TickCursor,
    private readonly cap: number,
  ) {}

  /** True once the cap was reached and every tick read was consumed: the tier may hold more. */
  get capped(): boolean {
    return this.exhausted && this.reads >= this.cap;
  }

  /** The next tick without consuming it (throws what the cursor throws). */
  peek(): TickDocument | undefined {
    if (!this.loaded && !this.exhausted) {
      const next = this.cursor.next();
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
}

function earliest(a: TickDocument | undefined, b: TickDocument | undefined): TickDocument | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareTicks(a, b) <= 0 ? a : b;
}
