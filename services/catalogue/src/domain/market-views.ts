import { filters, planScope } from "@odds/proto";
import { LRUCache } from "lru-cache";
import type { MarketLeagueActivity } from "./activity";
import { compareIDs, type Catalogue } from "./catalogue";
import type { MarketDefinition } from "./market-definition";

const { matchesList } = filters;
const { bookmakerVisible, leagueVisible } = planScope;
type PlanScope = planScope.PlanScope;

/** A market as one view shows it, kept in the exact shape served. */
export interface MarketInView {
  definition: MarketDefinition;
  /** The contract object's JSON bytes, exactly as served. */
  json: Buffer;
  /** Sorted: bookmakers in the plan pricing the market in the view's leagues; empty means unsupported. */
  bookmakers: readonly string[];
  /** Sorted: the leagues of `support`. */
  supportLeagueIDs: readonly string[];
  activeEvents: number;
}

/**
 * What a market's object depends on besides the catalogue: the plan's sports, leagues and
 * bookmakers, and the sportID/leagueID filters that narrow support and counts. The other
 * filters (bookmakerID, isSupported, the oddID parts and flags) only select whole markets.
 */
export interface MarketViewQuery {
  sportIDs: readonly string[];
  leagueIDs: readonly string[];
}

/** Default memory bound of the kept markets: a whole view at full scale is about 6 MB (see README). */
export const DEFAULT_MARKET_VIEW_BYTES = 64 * 1024 * 1024;

/** Rough heap cost of an entry beyond its JSON bytes (the Map slot, the entry and its arrays). */
const ENTRY_OVERHEAD_BYTES = 200;

/** One view of one catalogue state: markets rendered on first use, by oddID; null = not in the view. */
class MarketView {
  readonly markets = new Map<string, MarketInView | null>();
  bytes = 0;
}

/**
 * Markets rendered once per view and reused by every page until the catalogue changes, so a
 * page costs a lookup per market it passes, never a rebuild (or sort) of each object. Views
 * are kept in an LRU bounded in bytes; a change to the catalogue (a commit, or a reload that
 * swaps it) drops them all.
 */
export class MarketViews {
  private readonly views: LRUCache<string, MarketView>;
  private catalogue: Catalogue | undefined;
  private generation = -1;
  private last: { key: string; view: MarketView } | undefined;
  private renders = 0;

  constructor(maxBytes: number) {
    this.views = new LRUCache<string, MarketView>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (v) => v.bytes || 1,
    });
  }

  /** Markets rendered since start: a page served from kept markets adds nothing. */
  get rendered(): number {
    return this.renders;
  }

  /** The market as this view shows it, or undefined when none of its leagues is in the view. */
  lookup(
    catalogue: Catalogue,
    scope: PlanScope,
    query: MarketViewQuery,
  ): (market: MarketDefinition) => MarketInView | undefined {
    if (catalogue !== this.catalogue || catalogue.generation !== this.generation) {
      this.views.clear();
      this.catalogue = catalogue;
      this.generation = catalogue.generation;
      this.last = undefined;
    }
    // The view used last may have grown since it was sized: size it again (evicting others past the bound).
    if (this.last && this.views.peek(this.last.key) === this.last.view) this.views.set(this.last.key, this.last.view);
    const key = viewKey(scope, query);
    let view = this.views.get(key);
    if (!view) {
      view = new MarketView();
      this.views.set(key, view);
    }
    this.last = { key, view };
    const current = view;
    return (market) => {
      let entry = current.markets.get(market.oddID);
      if (entry === undefined) {
        entry = renderMarket(catalogue, scope, query, market);
        this.renders++;
        current.markets.set(market.oddID, entry);
        current.bytes += ENTRY_OVERHEAD_BYTES + (entry?.json.length ?? 0);
      }
      return entry ?? undefined;
    };
  }
}

function viewKey(scope: PlanScope, query: MarketViewQuery): string {
  const list = (ids: Iterable<string> | null) => (ids === null ? null : [...new Set(ids)].sort(compareIDs));
  return JSON.stringify([
    list(scope.sportIDs),
    list(scope.leagueIDs),
    list(scope.bookmakerIDs),
    list(query.sportIDs),
    list(query.leagueIDs),
  ]);
}

function renderMarket(
  catalogue: Catalogue,
  scope: PlanScope,
  query: MarketViewQuery,
  market: MarketDefinition,
): MarketInView | null {
  const support: Record<string, Record<string, true>> = {};
  const bookmakers = new Set<string>();
  let activeEvents = 0;
  let inView = false;
  for (const activity of catalogue.activity.marketLeagues(market.oddID)) {
    if (!leagueVisible(scope, activity.leagueID, activity.sportID)) continue;
    if (!matchesList(query.leagueIDs as string[], activity.leagueID)) continue;
    if (!matchesList(query.sportIDs as string[], activity.sportID)) continue;
    inView = true;
    activeEvents += scope.bookmakerIDs === null ? activity.activeEvents : pricedByVisible(scope, activity);
    const leagueSupport: Record<string, true> = {};
    for (const bookmakerID of [...activity.bookmakers.keys()].sort()) {
      if (!bookmakerVisible(scope, bookmakerID)) continue;
      leagueSupport[bookmakerID] = true;
      bookmakers.add(bookmakerID);
    }
    if (Object.keys(leagueSupport).length > 0) support[activity.leagueID] = leagueSupport;
  }
  if (!inView) return null;
  const sortedSupport = Object.entries(support).sort(([a], [b]) => compareIDs(a, b));
  const sortedBookmakers = [...bookmakers].sort();
  const object = {
    ...market,
    isSupported: bookmakers.size > 0,
    activeEvents,
    support: Object.fromEntries(sortedSupport),
    bookmakers: sortedBookmakers,
  };
  return {
    definition: market,
    json: Buffer.from(JSON.stringify(object), "utf8"),
    bookmakers: sortedBookmakers,
    supportLeagueIDs: sortedSupport.map(([leagueID]) => leagueID),
    activeEvents,
  };
}

/** Events on which a bookmaker the plan can see prices the market. */
function pricedByVisible(scope: PlanScope, activity: MarketLeagueActivity): number {
  let events = 0;
  for (const bookmakerIDs of activity.pricedOn.values()) {
    if (bookmakerIDs.some((bookmakerID) => bookmakerVisible(scope, bookmakerID))) events++;
  }
  return events;
}
