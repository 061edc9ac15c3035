import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { oddId, pageLimits, planScope, type v1 } from "@odds/proto";
import {
  CursorCodec,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  callDeadline,
  inSpan,
  isDeadlinePassed,
  requestedPageLimit,
  type StoreCallPolicy,
} from "@odds/platform";
import { MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError } from "mongodb";
import { z } from "zod";
import type { EventRef, EventRefStore } from "./event-refs";
import { pageRenewals, tierReadSeconds } from "./metrics";
import { ARCHIVE_DOWN_NOTICE, mergeTiers, TierStream, type MergedPage } from "./tier-merge";
import type { SeriesSource, TickPosition, TickTier, TickWindow, TierName, WindowPlan } from "./tick-tier";
import { CAPTURE_START_MS, DAY_MS, renderTicks, seriesKeyOf } from "./ticks";
import { resolveV1Window, toV1Tick, v1ObjectsOf, v1TickFilter } from "./v1-ticks";

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
  /** v1: eventID is a v1 id, v1's window rules, market and outcome filters, v1 OddsTick items. */
  view?: "v1";
  /** v1 only: market_id and outcome_id filters (v1 ids). */
  marketIDs?: string[];
  outcomeIDs?: string[];
  /** The tag of the page the caller holds for this very query: while it is still the page, the answer is `unchanged`. */
  ifTag?: string;
}

export interface TickPage {
  items: Buffer[];
  /** Empty on the last page. */
  nextCursor: string;
  /** Empty unless the series is incomplete. */
  notice: string;
  /** v1 usage of the page (1 per tick plus 1 per price); absent for v2. */
  objects?: number;
  /**
   * Names what the page was read from: the query, its window and position, and the versions of the buckets
   * read in each tier. Empty for a page read without a tier it needed (a notice), which is never renewed as it is.
   */
  tag: string;
  /** The page is the one `ifTag` named: no items (and no cursor) are sent. */
  unchanged?: boolean;
}

/** Contract: each request reads at most this many ticks per tier before paging. */
export const READ_CAP_PER_TIER = 50_000;
export const MAX_SPAN_DAYS = 400;
const DEFAULT_DAYS_BEFORE_KICKOFF_DATE = 21;
const DEFAULT_DAYS_AFTER_KICKOFF = 2;
/** Slack on the archive boundary for clock skew between the archiver and readers. */
const ARCHIVE_BOUNDARY_SLACK_MS = DAY_MS;
/**
 * How long after listing a page's buckets its tiers' revisions alone confirm it. Every write moves its event's
 * revision after it lands, so a renewal sees a write at once; the bound is for a writer that died between its write
 * and the revision, or a replica of a release before revisions writing beside this one. Such a page is confirmed at
 * most this long, which keeps it within the contract's 5 s for new ticks to reach `/v2/odds/history/`.
 */
export const REVISION_TRUST_MS = 4_000;
/** Pages listed that a renewal may confirm by revisions: far more than the hot pages an edge renews. */
const LISTED_PAGES = 10_000;

const EMPTY_PAGE: TickPage = { items: [], nextCursor: "", notice: "", tag: "" };

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
  /** Where each league's v1 history starts. */
  historyStarts: v1.HistoryStarts;
  /** The code's release (`serviceRelease`): named in every page tag, so no page another release rendered is confirmed. */
  release?: string;
  /** `REVISION_TRUST_MS` unless given (0: every renewal lists the buckets). */
  revisionTrustMs?: number;
}

/** What a page's last listing asked and read: its query, resolved, the tiers' revisions, and when. */
interface ListedPage {
  asked: string;
  revisions: TierRevisions;
  listedAtMs: number;
}

/** An event's revision in each tier read for a page; the archive's is null where it was not read. */
interface TierRevisions {
  live: number;
  archive: number | null;
}

/**
 * Serves one event's tick series across both tiers: checks the query, scope and window, reads
 * each tier as one sorted stream and merges them (tier-merge.ts). The cursor is the last
 * position consumed, so everything at or before it has been seen in both tiers.
 *
 * A renewal (`ifTag`) of a page this replica listed lately is confirmed by the event's revision in each tier, one
 * look-up by `_id` each, instead of listing the window's buckets again (docs/performance.md "Hot history renewals
 * confirmed by revisions").
 */
export class TickReader {
  private readonly readCap: number;
  private readonly now: () => number;
  private readonly liveDeadline: StoreCallPolicy;
  private readonly archiveDeadline: StoreCallPolicy;
  private readonly revisionTrustMs: number;
  /** By tag: the pages this replica listed, for renewals to confirm by revisions. */
  private readonly listed = new LRUCache<string, ListedPage>({ max: LISTED_PAGES });

  constructor(
    private readonly live: TickTier,
    private readonly archive: TickTier,
    private readonly eventRefs: EventRefStore,
    private readonly options: TickReaderOptions,
  ) {
    this.readCap = options.readCapPerTier ?? READ_CAP_PER_TIER;
    this.now = options.now ?? Date.now;
    this.liveDeadline = callDeadline(options.liveReadTimeoutMs);
    this.archiveDeadline = callDeadline(options.archiveReadTimeoutMs);
    this.revisionTrustMs = options.revisionTrustMs ?? REVISION_TRUST_MS;
  }

  listTicks(query: TickQuery): Promise<TickPage> {
    return inSpan("history.listTicks", { "odds.event_id": query.eventID }, () => this.read(query));
  }

  private async read(query: TickQuery): Promise<TickPage> {
    const isV1 = query.view === "v1";
    const eventParameter = isV1 ? "event_id" : "eventID";
    if (!query.eventID) throw new InvalidArgumentError(eventParameter, "is required");
    const limit = requestedPageLimit(
      query.limit ?? 0,
      isV1 ? pageLimits.V1_PAGE_LIMITS.history : pageLimits.PAGE_LIMITS.history,
    );
    const oddIDs = uniqueSorted(query.oddIDs);
    const marketIDs = uniqueSorted(query.marketIDs ?? []);
    const outcomeIDs = uniqueSorted(query.outcomeIDs ?? []);
    const requestedBookmakers = uniqueSorted(query.bookmakerIDs);
    const fingerprint = {
      eventID: query.eventID,
      oddIDs,
      bookmakerIDs: requestedBookmakers,
      from: query.fromMs ?? null,
      to: query.toMs ?? null,
      ...(isV1 ? { view: "v1", marketIDs, outcomeIDs } : {}),
    };
    const position = query.cursor ? cursorCodec.decode(query.cursor, fingerprint) : undefined;

    const event = await this.liveCall(() =>
      isV1 ? this.eventRefs.getByV1Id(query.eventID) : this.eventRefs.get(query.eventID),
    );
    if (!event || !inLeagueScope(query.scope, event))
      throw new NotFoundError(`${eventParameter}: no event ${query.eventID}`);

    const requested = isV1
      ? resolveV1Window(event, query.fromMs, query.toMs, this.now(), this.options.historyStarts)
      : resolveWindow(event, query.fromMs, query.toMs);
    // The window's end as asked, or as the first page froze it; a first page reads up to now at the latest.
    const askedToMs = position?.to ?? requested.toMs;
    const toMs = position?.to ?? Math.min(requested.toMs, this.now());
    const fromMs = Math.max(requested.fromMs, CAPTURE_START_MS);
    const bookmakerIDs = visibleBookmakers(query.scope, requestedBookmakers);
    if (fromMs >= toMs || bookmakerIDs?.length === 0) return isV1 ? { ...EMPTY_PAGE, objects: 0 } : EMPTY_PAGE;

    const window: TickWindow = { eventID: event.eventID, fromMs, toMs, ...(bookmakerIDs ? { bookmakerIDs } : {}) };
    const keeps = isV1 ? v1TickFilter(marketIDs, outcomeIDs) : oddId.oddIDFilter(oddIDs);
    const archiveMayHold = this.archiveMayHold(window);
    // What the page answers names the window's end as asked, not the instant it was read up to: see `readsToNow`.
    const asked = JSON.stringify({
      release: this.options.release ?? "",
      fingerprint,
      limit,
      window: { ...window, toMs: askedToMs },
      position: position ?? null,
    });
    const unchanged = (tag: string): TickPage => ({
      ...EMPTY_PAGE,
      tag,
      unchanged: true,
      ...(isV1 ? { objects: 0 } : {}),
    });
    if (query.ifTag && (await this.confirmedByRevisions(query.ifTag, asked, window.eventID, archiveMayHold))) {
      pageRenewals.inc({ outcome: "revisions" });
      return unchanged(query.ifTag);
    }
    const plans = await this.planTiers(window, archiveMayHold);
    const readToNow = readsToNow(window, askedToMs, plans);
    // Only a page read from every tier it needs is tagged: a page with a notice is never renewed as it is.
    const tag = plans.notice ? "" : pageTag(readToNow ? `${asked}\nread to ${toMs}` : asked, plans);
    if (tag !== "" && !readToNow) {
      const revisions = { live: plans.live.revision, archive: plans.archive?.revision ?? null };
      this.listed.set(tag, { asked, revisions, listedAtMs: this.now() });
    }
    const sameTag = tag !== "" && query.ifTag === tag;
    if (query.ifTag) pageRenewals.inc({ outcome: sameTag ? "listing" : "changed" });
    if (sameTag) return unchanged(tag);
    const page = this.readPlanned(window, plans, position, limit, keeps);
    const nextCursor = page.stoppedAt ? cursorCodec.encode(fingerprint, { ...page.stoppedAt, to: toMs }) : "";
    const read = { nextCursor, notice: page.notice, tag: page.notice ? "" : tag };
    if (!isV1) return { items: renderTicks(page.items), ...read };
    const ticks = page.items.map(toV1Tick);
    return {
      items: ticks.map((tick) => Buffer.from(JSON.stringify(tick), "utf8")),
      ...read,
      objects: ticks.reduce((sum, tick) => sum + v1ObjectsOf(tick), 0),
    };
  }

  /** Whether the archive may hold ticks of the window (else it is not read). */
  private archiveMayHold(window: TickWindow): boolean {
    return window.fromMs < this.now() - this.options.liveRetentionDays * DAY_MS + ARCHIVE_BOUNDARY_SLACK_MS;
  }

  /**
   * Whether the page tagged `ifTag` is still the answer to `asked`, by revisions alone: this replica listed it for
   * the same question within `revisionTrustMs`, and the event's revision in each tier it read has not moved since
   * (read in the order the listing read them: live, then the archive). False sends the renewal to a listing.
   */
  private async confirmedByRevisions(
    ifTag: string,
    asked: string,
    eventID: string,
    archiveMayHold: boolean,
  ): Promise<boolean> {
    const held = this.listed.get(ifTag);
    if (!held || held.asked !== asked || this.now() - held.listedAtMs >= this.revisionTrustMs) return false;
    if ((held.revisions.archive !== null) !== archiveMayHold) return false;
    if ((await this.liveCall(() => this.live.revisionOf(eventID))) !== held.revisions.live) return false;
    if (!archiveMayHold) return true;
    const archive = await this.archiveDeadline.execute(() => this.archive.revisionOf(eventID)).catch(() => undefined);
    return archive === held.revisions.archive;
  }

  /** The window's buckets in each tier it may be in: the archive only where it may hold ticks (null when not read). */
  private async planTiers(window: TickWindow, archiveMayHold: boolean): Promise<TierPlans> {
    // Live first, then the archive: the archiver copies a bucket before deleting it from live, so a bucket the
    // live query no longer finds was copied before the archive query starts. Queried together, a read could
    // query the archive just before a copy and live just after the delete, and miss those ticks in both tiers.
    const live = await this.timed("live", () => this.liveCall(() => this.live.planWindow(window)));
    const archive = archiveMayHold ? await this.archiveCall(() => this.archive.planWindow(window)) : null;
    return { live, archive, notice: archive === undefined ? ARCHIVE_DOWN_NOTICE : "" };
  }

  /** The window's ranked series from the tiers planned, merged into one page. */
  private readPlanned(
    window: TickWindow,
    { live: livePlan, archive: archivePlan, notice: sourcesNotice }: TierPlans,
    position: TickPosition | undefined,
    limit: number,
    keeps: (oddID: string) => boolean,
  ): MergedPage {
    const seriesKeys = rankedSeries([...livePlan.sources(), ...(archivePlan?.sources() ?? [])]);
    if (seriesKeys.length === 0) return { items: [], notice: sourcesNotice };

    const ranked: TickWindow = { ...window, seriesKeys, ...(position ? { after: position } : {}) };
    const open = (plan: WindowPlan) => new TierStream(plan.open(ranked, this.readCap), this.readCap);
    const merged = mergeTiers(open(livePlan), archivePlan ? open(archivePlan) : undefined, limit, keeps);
    return { ...merged, notice: merged.notice || sourcesNotice };
  }

  /** Live-tier failures are the service's own unavailability (UNAVAILABLE → 503 at the edge). */
  private async liveCall<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.liveDeadline.execute(work);
    } catch (err) {
      if (isUnreachable(err)) throw new UnavailableError("the live history tier is unavailable");
      throw err;
    }
  }

  /** Archive-tier failures degrade the answer (undefined) instead of failing it. */
  private async archiveCall<T>(work: () => Promise<T>): Promise<T | undefined> {
    const started = process.hrtime.bigint();
    try {
      const result = await this.archiveDeadline.execute(work);
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
}

/** A window's plan in each tier: the archive's is null where it was not read, undefined where it did not answer. */
interface TierPlans {
  live: WindowPlan;
  archive: WindowPlan | null | undefined;
  notice: string;
}

/**
 * Whether a page depends on the instant it was read up to, and so names it in its tag and is never confirmed by
 * revisions. A window whose end as asked is still ahead is read up to now (an upcoming or live event's default window,
 * the one its pollers renew). While its buckets stay as listed, a later read up to a later instant reads the same
 * ticks, unless a bucket holds a tick at or past the instant it was read up to: one dated ahead of this replica's clock
 * by its writer's, which a later read takes in as its time passes. A bucket written before buckets noted their newest
 * tick counts as holding one at the end of its hour. (A tick dated past the end of the current hour is in a bucket this
 * read did not look up; a renewal by revisions sees it once the trust has passed, the bound of `REVISION_TRUST_MS`.)
 */
function readsToNow(window: TickWindow, askedToMs: number, plans: TierPlans): boolean {
  if (window.toMs >= askedToMs) return false;
  return Math.max(plans.live.newestAtMs, plans.archive?.newestAtMs ?? -Infinity) >= window.toMs;
}

/**
 * A page's tag: the code's release, what it was asked (query, page size, window with its end as asked, position) and
 * what each tier held for the window when it was read. The same tag is the same page: ticks are only added to a bucket,
 * each rewrite bumps its version, and one release renders a page from its ticks alone (one read up to now also names
 * that instant where it matters: `readsToNow`).
 */
function pageTag(asked: string, plans: TierPlans): string {
  return createHash("sha256")
    .update(asked)
    .update(`\nlive\n${plans.live.contents}`)
    .update(plans.archive ? `\narchive\n${plans.archive.contents}` : "\nno archive")
    .digest("base64url");
}

/**
 * The window as asked, defaults filled in: from = 21 days before the kickoff date (midnight UTC), to = 2 days after
 * kickoff. The 400-day limit applies to that span; a read stops at now (`TickReader`).
 */
export function resolveWindow(
  event: EventRef,
  fromMs: number | undefined,
  toMs: number | undefined,
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
  return { fromMs: from, toMs: to };
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
    isDeadlinePassed(err) ||
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoTopologyClosedError
  );
}
