import { oddId, pageLimits, planScope } from "@odds/proto";
import {
  CursorCodec,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  inSpan,
  requestedPageLimit,
} from "@odds/platform";
import { MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError, type FindCursor } from "mongodb";
import { z } from "zod";
import type { EventRef, EventRefStore } from "./event-refs";
import { tierReadSeconds } from "./metrics";
import type { SeriesSource, TickPosition, TickTier, TickWindow, TierName } from "./tick-tier";
import { CAPTURE_START_MS, DAY_MS, renderTick, seriesKeyOf, type TickDocument } from "./ticks";

export interface TickQuery {
  scope: planScope.PlanScope;
  eventID: string;
  oddIDs: string[];
  bookmakerIDs: string[];
  fromMs?: number;
  toMs?: number;
  /** 0 or absent = default. */
  limit?: number;
  cursor?: string;
}

export interface TickPage {
  items: Buffer[];
  /** Empty on the last page. */
  nextCursor: string;
  /** Empty unless the series is incomplete. */
  notice: string;
}

/** Contract: each request reads at most this many ticks per tier before paging. */
export const READ_CAP_PER_TIER = 50_000;
export const MAX_SPAN_DAYS = 400;
const DEFAULT_DAYS_BEFORE_KICKOFF_DATE = 21;
const DEFAULT_DAYS_AFTER_KICKOFF = 2;
/** Slack on the archive boundary for clock skew between the archiver and readers. */
const ARCHIVE_BOUNDARY_SLACK_MS = DAY_MS;

export const ARCHIVE_DOWN_NOTICE =
  "The archive tier did not answer in time: this series is incomplete at its old end (ticks older than about 28 days are missing).";
export const ARCHIVE_STOPPED_NOTICE =
  "The archive tier stopped answering during this request: the page ends early; continue with nextCursor.";

/** Where the next page starts, plus the window end frozen by the first page so pages stay consistent. */
const positionSchema = z.object({
  at: z.number().int(),
  id: z.string().min(1).max(64),
  to: z.number().int(),
});
const cursorCodec = new CursorCodec("odds.history.ticks", positionSchema);

export interface TickReaderOptions {
  liveRetentionDays: number;
  archiveReadTimeoutMs: number;
  liveReadTimeoutMs: number;
  readCapPerTier?: number;
  now?: () => number;
}

class TierTimeoutError extends Error {}

/**
 * Serves one event's tick series across both tiers. Each tier is read as one sorted
 * stream; the streams are merged in history order (changedAt, tick id) and a tick present
 * in both tiers (mid-archive) is returned once. The cursor is the last position consumed,
 * so everything at or before it has been seen in both tiers.
 */
export class TickReader {
  private readonly readCap: number;
  private readonly now: () => number;

  constructor(
    private readonly live: TickTier,
    private readonly archive: TickTier,
    private readonly eventRefs: EventRefStore,
    private readonly options: TickReaderOptions,
  ) {
    this.readCap = options.readCapPerTier ?? READ_CAP_PER_TIER;
    this.now = options.now ?? Date.now;
  }

  listTicks(query: TickQuery): Promise<TickPage> {
    return inSpan("history.listTicks", { "odds.event_id": query.eventID }, () => this.read(query));
  }

  private async read(query: TickQuery): Promise<TickPage> {
    if (!query.eventID) throw new InvalidArgumentError("eventID", "is required");
    const limit = requestedPageLimit(query.limit ?? 0, pageLimits.PAGE_LIMITS.history);
    const oddIDs = uniqueSorted(query.oddIDs);
    const requestedBookmakers = uniqueSorted(query.bookmakerIDs);
    const fingerprint = {
      eventID: query.eventID,
      oddIDs,
      bookmakerIDs: requestedBookmakers,
      from: query.fromMs ?? null,
      to: query.toMs ?? null,
    };
    const position = query.cursor ? cursorCodec.decode(query.cursor, fingerprint) : undefined;

    const event = await this.liveCall(() => this.eventRefs.get(query.eventID));
    if (!event || !inLeagueScope(query.scope, event)) throw new NotFoundError(`eventID: no event ${query.eventID}`);

    const requested = resolveWindow(event, query.fromMs, query.toMs, this.now());
    const toMs = position?.to ?? requested.toMs;
    const fromMs = Math.max(requested.fromMs, CAPTURE_START_MS);
    const bookmakerIDs = visibleBookmakers(query.scope, requestedBookmakers);
    const empty: TickPage = { items: [], nextCursor: "", notice: "" };
    if (fromMs >= toMs || bookmakerIDs?.length === 0) return empty;

    const window: TickWindow = { eventID: event.eventID, fromMs, toMs, ...(bookmakerIDs ? { bookmakerIDs } : {}) };
    const archiveMayHold = fromMs < this.now() - this.options.liveRetentionDays * DAY_MS + ARCHIVE_BOUNDARY_SLACK_MS;
    const [liveSources, archiveSources] = await Promise.all([
      this.timed("live", () => this.liveCall(() => this.live.seriesSources(window))),
      archiveMayHold ? this.archiveCall(() => this.archive.seriesSources(window)) : Promise.resolve([]),
    ]);
    let notice = archiveSources === undefined ? ARCHIVE_DOWN_NOTICE : "";
    const seriesKeys = rankedSeries([...liveSources, ...(archiveSources ?? [])]);
    if (seriesKeys.length === 0) return { ...empty, notice };

    const ranked: TickWindow = { ...window, seriesKeys, ...(position ? { after: position } : {}) };
    const batchSize = Math.max(limit + 1, 1000);
    const liveStream = new TierStream(
      "live",
      this.live.openWindow(ranked, this.readCap, batchSize),
      this.readCap,
      (next) => this.liveCall(next),
    );
    let archiveStream =
      !archiveMayHold || archiveSources === undefined
        ? undefined
        : new TierStream("archive", this.archive.openWindow(ranked, this.readCap, batchSize), this.readCap, (next) =>
            this.withTimeout(next(), this.options.archiveReadTimeoutMs),
          );
    const streams = [liveStream, archiveStream];

    const matchesOdd = oddId.oddIDFilter(oddIDs);
    const items: TickDocument[] = [];
    let consumed: TickPosition | undefined;
    let stoppedAt: TickPosition | undefined;
    // Both tiers' first reads go out together; the loop then waits on the same reads.
    void archiveStream?.peek().catch(() => undefined);
    try {
      for (;;) {
        const liveHead = await liveStream.peek();
        let archiveHead: TickDocument | undefined;
        if (archiveStream) {
          try {
            archiveHead = await archiveStream.peek();
          } catch {
            archiveStream = undefined;
            if (consumed === undefined) {
              notice = ARCHIVE_DOWN_NOTICE;
              continue;
            }
            notice = ARCHIVE_STOPPED_NOTICE;
            stoppedAt = consumed;
            break;
          }
        }
        if (liveStream.capped || archiveStream?.capped) {
          stoppedAt = consumed;
          break;
        }
        const next = earliest(liveHead, archiveHead);
        if (!next) break;
        if (liveHead?._id === next._id) liveStream.shift();
        if (archiveHead?._id === next._id) archiveStream!.shift();
        const nextPosition: TickPosition = { at: next.changedAt.getTime(), id: next._id };
        if (matchesOdd(next.oddID)) {
          if (items.length === limit) {
            stoppedAt = consumed;
            break;
          }
          items.push(next);
        }
        consumed = nextPosition;
      }
    } finally {
      for (const stream of streams) stream?.close();
    }

    // The page ends at the last position consumed from the merged streams: every tick at or
    // before it has been seen in both tiers (for a capped read, possibly one the oddID filter skipped).
    return {
      items: items.map(renderTick),
      nextCursor: stoppedAt ? cursorCodec.encode(fingerprint, { ...stoppedAt, to: toMs }) : "",
      notice,
    };
  }

  /** Live-tier failures are the service's own unavailability (UNAVAILABLE → 503 at the edge). */
  private async liveCall<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.withTimeout(work(), this.options.liveReadTimeoutMs);
    } catch (err) {
      if (isUnreachable(err)) throw new UnavailableError("the live history tier is unavailable");
      throw err;
    }
  }

  /** Archive-tier failures degrade the answer (undefined) instead of failing it. */
  private async archiveCall<T>(work: () => Promise<T>): Promise<T | undefined> {
    const started = process.hrtime.bigint();
    try {
      const result = await this.withTimeout(work(), this.options.archiveReadTimeoutMs);
      tierReadSeconds.observe({ tier: "archive", outcome: "ok" }, Number(process.hrtime.bigint() - started) / 1e9);
      return result;
    } catch {
      tierReadSeconds.observe(
        { tier: "archive", outcome: "unavailable" },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      return undefined;
    }
  }

  private async timed<T>(tier: TierName, work: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let outcome = "ok";
    try {
      return await work();
    } catch (err) {
      outcome = "error";
      throw err;
    } finally {
      tierReadSeconds.observe({ tier, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TierTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}

/** One tier's ticks of the window as a sorted stream with a one-tick lookahead and a read cap. */
class TierStream {
  private head: TickDocument | undefined;
  private loaded = false;
  private pending: Promise<TickDocument | undefined> | undefined;
  private reads = 0;
  private exhausted = false;
  private readSeconds = 0;
  private failed = false;

  constructor(
    private readonly tier: TierName,
    private readonly cursor: FindCursor<TickDocument>,
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
        next = await this.guard(() => this.cursor.next());
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

  /** Records the time this request spent reading the tier, and releases its cursor. */
  close(): void {
    tierReadSeconds.observe({ tier: this.tier, outcome: this.failed ? "unavailable" : "ok" }, this.readSeconds);
    void this.cursor.close().catch(() => undefined);
  }
}

function earliest(a: TickDocument | undefined, b: TickDocument | undefined): TickDocument | undefined {
  if (!a) return b;
  if (!b) return a;
  const byTime = a.changedAt.getTime() - b.changedAt.getTime();
  if (byTime !== 0) return byTime < 0 ? a : b;
  return a._id <= b._id ? a : b;
}

/**
 * Defaults: from = 21 days before the kickoff date (midnight UTC), to = 2 days after
 * kickoff; to is capped at now. The 400-day limit applies to the span as asked (with
 * defaults filled in), before capping.
 */
export function resolveWindow(
  event: EventRef,
  fromMs: number | undefined,
  toMs: number | undefined,
  nowMs: number,
): { fromMs: number; toMs: number } {
  const kickoffDate = Math.floor(event.startsAtMs / DAY_MS) * DAY_MS;
  const from = fromMs ?? kickoffDate - DEFAULT_DAYS_BEFORE_KICKOFF_DATE * DAY_MS;
  const to = toMs ?? event.startsAtMs + DEFAULT_DAYS_AFTER_KICKOFF * DAY_MS;
  if (from >= to) throw new InvalidArgumentError("from", "must be before to");
  if (to - from > MAX_SPAN_DAYS * DAY_MS)
    throw new InvalidArgumentError(
      "from",
      `from and to span more than ${MAX_SPAN_DAYS} days (at most ${MAX_SPAN_DAYS})`,
    );
  return { fromMs: from, toMs: Math.min(to, nowMs) };
}

function inLeagueScope(scope: planScope.PlanScope, event: EventRef): boolean {
  return planScope.leagueVisible(scope, event.leagueID, event.sportID);
}

/** The bookmakers to read: the ones asked for, within the plan's cap; undefined = all. */
function visibleBookmakers(scope: planScope.PlanScope, requested: string[]): string[] | undefined {
  const allowed = scope.bookmakerIDs;
  if (allowed === null) return requested.length > 0 ? requested : undefined;
  return requested.length > 0 ? requested.filter((id) => allowed.has(id)) : uniqueSorted([...allowed]);
}

/**
 * One bookmaker is one series: of the sources a bookmaker reached the window through,
 * the highest-ranked one (ties: lowest source id) is kept for the whole window.
 */
export function rankedSeries(sources: SeriesSource[]): string[] {
  const best = new Map<string, SeriesSource>();
  for (const source of sources) {
    const current = best.get(source.bookmakerID);
    if (
      !current ||
      source.sourceRank > current.sourceRank ||
      (source.sourceRank === current.sourceRank && source.sourceID < current.sourceID)
    )
      best.set(source.bookmakerID, source);
  }
  return [...best.values()].map((source) => seriesKeyOf(source.bookmakerID, source.sourceID)).sort();
}

function uniqueSorted(values: string[]): string[] {
  return [...new Set(values.filter((value) => value.length > 0))].sort();
}

function isUnreachable(err: unknown): boolean {
  return (
    err instanceof TierTimeoutError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoTopologyClosedError
  );
}
