import { createHash } from "node:crypto";
import { CursorCodec, InvalidArgumentError, requestedPageLimit } from "@odds/platform";
import { filters, objects, oddId, pageLimits, planScope } from "@odds/proto";
import stableStringify from "safe-stable-stringify";
import { z } from "zod";
import {
  type Catalogue,
  type LeagueRecord,
  type PlayerRecord,
  type SportRecord,
  type StatRecord,
  type TeamRecord,
} from "./catalogue";
import type { MarketDefinition } from "./market-definition";
import { MarketViews, type MarketInView } from "./market-views";

const { matchesFlag, matchesList } = filters;
const { leagueVisible, sportVisible } = planScope;
type PlanScope = planScope.PlanScope;
const { PAGE_LIMITS } = pageLimits;
const { PROP_TYPES, STAT_LEVELS } = objects;
type PropType = objects.PropType;
type StatLevel = objects.StatLevel;

/** One page of contract objects; an empty nextCursor means the last page. */
export interface ReadPage<Item> {
  items: Item[];
  nextCursor: string;
}

/** A read as answered to a caller naming the tag of the page it holds: the page, or only its tag when it is that page. */
export type TaggedRead<Page> = { tag: string; unchanged: true } | { tag: string; unchanged: false; page: Page };

export interface LeagueQuery {
  sportIDs: string[];
  leagueIDs: string[];
}

export interface TeamQuery {
  sportIDs: string[];
  leagueIDs: string[];
  teamIDs: string[];
  limit: number;
  cursor: string;
}

export interface PlayerQuery {
  teamIDs: string[];
  eventIDs: string[];
  playerIDs: string[];
  leagueIDs: string[];
  limit: number;
  cursor: string;
}

export interface StatQuery {
  statIDs: string[];
  sportIDs: string[];
  /** Empty means all. */
  statLevel: string;
}

export interface MarketQuery {
  oddIDs: string[];
  sportIDs: string[];
  leagueIDs: string[];
  bookmakerIDs: string[];
  statIDs: string[];
  statEntityIDs: string[];
  periodIDs: string[];
  betTypeIDs: string[];
  sideIDs: string[];
  isMainMarket?: boolean;
  isProp?: boolean;
  isSubPeriod?: boolean;
  /** Empty means any. */
  propType: string;
  /** Omitted means true. */
  isSupported?: boolean;
  limit: number;
  cursor: string;
}

const afterID = z.object({ after: z.string().min(1) });
const cursors = {
  teams: new CursorCodec("catalogue.teams", afterID),
  players: new CursorCodec("catalogue.players", afterID),
  markets: new CursorCodec("catalogue.markets", afterID),
};

/** Reads over the in-memory catalogue, filtered by the caller's plan. */
export class CatalogueReads {
  private readonly marketViews: MarketViews;

  /** `marketViewBytes` bounds the memory of the markets kept rendered (MarketViews). */
  constructor(
    private readonly catalogue: () => Catalogue,
    marketViewBytes: number,
  ) {
    this.marketViews = new MarketViews(marketViewBytes);
  }

  /** Markets rendered since start (MarketViews): a page served from kept markets adds nothing. */
  get marketsRendered(): number {
    return this.marketViews.rendered;
  }

  /**
   * A read tagged by the catalogue it is made from (`Catalogue.version`) and `asked`: everything else the page
   * depends on (which read, its query, view and plan), as plain data. A caller whose `ifTag` is that tag holds
   * this very page: it gets the tag back as unchanged, and nothing is read.
   */
  tagged<Page>(asked: unknown, ifTag: string | undefined, read: () => Page): TaggedRead<Page> {
    const tag = createHash("sha256")
      .update(this.catalogue().version)
      .update("\n")
      .update(stableStringify(asked) ?? "")
      .digest("base64url");
    if (ifTag === tag) return { tag, unchanged: true };
    return { tag, unchanged: false, page: read() };
  }

  /** The catalogue reads are currently served from. */
  snapshot(): Catalogue {
    return this.catalogue();
  }

  sports(scope: PlanScope): ReadPage<objects.Sport> {
    const catalogue = this.catalogue();
    const items = catalogue
      .ordered<SportRecord>("sports", (s) => s.sportID)
      .map((sport) => ({
        sportID: sport.sportID,
        name: sport.name,
        shortName: sport.shortName,
        enabled: sportVisible(scope, sport.sportID),
        activeEvents: catalogue.activity.sportActiveEvents(sport.sportID),
      }));
    return { items, nextCursor: "" };
  }

  leagues(scope: PlanScope, query: LeagueQuery): ReadPage<objects.League> {
    const catalogue = this.catalogue();
    const items = catalogue
      .ordered<LeagueRecord>("leagues", (l) => l.leagueID)
      .filter((league) => matchesList(query.sportIDs, league.sportID) && matchesList(query.leagueIDs, league.leagueID))
      .map((league) => ({
        leagueID: league.leagueID,
        sportID: league.sportID,
        name: league.name,
        shortName: league.shortName,
        enabled: leagueVisible(scope, league.leagueID, league.sportID),
        activeEvents: catalogue.activity.leagueActiveEvents(league.leagueID),
      }));
    return { items, nextCursor: "" };
  }

  teams(scope: PlanScope, query: TeamQuery): ReadPage<objects.Team> {
    const limit = requestedPageLimit(query.limit, PAGE_LIMITS.teams);
    const { cursor, limit: _limit, ...filters } = query;
    return paginate(
      cursors.teams,
      filters,
      cursor,
      limit,
      this.catalogue().ordered<TeamRecord>("teams", (t) => t.teamID),
      (team) => team.teamID,
      (team) =>
        leagueVisible(scope, team.leagueID, team.sportID) &&
        matchesList(query.sportIDs, team.sportID) &&
        matchesList(query.leagueIDs, team.leagueID) &&
        matchesList(query.teamIDs, team.teamID),
      renderTeam,
    );
  }

  players(scope: PlanScope, query: PlayerQuery): ReadPage<objects.Player> {
    const limit = requestedPageLimit(query.limit, PAGE_LIMITS.players);
    const { cursor, limit: _limit, ...filters } = query;
    const eventIDs = new Set(query.eventIDs);
    return paginate(
      cursors.players,
      filters,
      cursor,
      limit,
      this.catalogue().ordered<PlayerRecord>("players", (p) => p.playerID),
      (player) => player.playerID,
      (player) =>
        leagueVisible(scope, player.leagueID, player.sportID) &&
        matchesList(query.teamIDs, player.teamID) &&
        matchesList(query.playerIDs, player.playerID) &&
        matchesList(query.leagueIDs, player.leagueID) &&
        (eventIDs.size === 0 || player.eventIDs.some((eventID) => eventIDs.has(eventID))),
      renderPlayer,
    );
  }

  stats(query: StatQuery): ReadPage<objects.Stat> {
    const level = statLevel(query.statLevel);
    const items = this.catalogue()
      .ordered<StatRecord>("stats", (s) => s.statID)
      .filter(
        (stat) =>
          matchesList(query.statIDs, stat.statID) &&
          (query.sportIDs.length === 0 || stat.sportIDs.some((sportID) => query.sportIDs.includes(sportID))) &&
          (level === "all" || stat.supportedLevels[level]),
      )
      .map((stat) => ({
        statID: stat.statID,
        supportedLevels: stat.supportedLevels,
        displays: stat.displays,
        isScoreStat: stat.statID === "points",
        supportedSports: Object.fromEntries(stat.sportIDs.map((sportID) => [sportID, true] as const)),
      }));
    return { items, nextCursor: "" };
  }

  /**
   * A page of markets as the plan and the sportID/leagueID filters show them. Each market is
   * rendered once per view and kept ready to serve until the catalogue changes (MarketViews),
   * so a page costs a lookup per market it passes.
   */
  markets(scope: PlanScope, query: MarketQuery): ReadPage<MarketInView> {
    const limit = requestedPageLimit(query.limit, PAGE_LIMITS.markets);
    const propType = marketPropType(query.propType);
    const isSupported = query.isSupported ?? true;
    const { cursor, limit: _limit, ...filters } = query;
    const catalogue = this.catalogue();
    const wantedBookmakers = new Set(query.bookmakerIDs);
    // Exact, or with the literal PLAYER_ID in the entity slot matching every player prop; made once per page.
    const wantsOddID = oddId.oddIDFilter(query.oddIDs);
    const inView = this.marketViews.lookup(catalogue, scope, query);

    const select = (market: MarketDefinition): MarketInView | undefined => {
      const shown = inView(market);
      if (shown === undefined) return undefined;
      if (shown.bookmakers.length > 0 !== isSupported) return undefined;
      if (wantedBookmakers.size > 0 && !shown.bookmakers.some((bookmakerID) => wantedBookmakers.has(bookmakerID))) {
        return undefined;
      }
      return shown;
    };

    return paginate(
      cursors.markets,
      { ...filters, propType, isSupported },
      cursor,
      limit,
      catalogue.ordered<MarketDefinition>("markets", (m) => m.oddID),
      (market) => market.oddID,
      (market) =>
        wantsOddID(market.oddID) &&
        matchesList(query.statIDs, market.statID) &&
        matchesList(query.statEntityIDs, market.statEntityID) &&
        matchesList(query.periodIDs, market.periodID) &&
        matchesList(query.betTypeIDs, market.betTypeID) &&
        matchesList(query.sideIDs, market.sideID) &&
        matchesFlag(query.isMainMarket, market.isMainMarket) &&
        matchesFlag(query.isProp, market.isProp) &&
        matchesFlag(query.isSubPeriod, market.isSubPeriod) &&
        (propType === undefined || market.propType === propType),
      select,
    );
  }
}

function renderTeam(team: TeamRecord): objects.Team {
  return {
    teamID: team.teamID,
    sportID: team.sportID,
    leagueID: team.leagueID,
    names: team.names,
    colors: team.colors,
    statEntityID: team.statEntityID,
  };
}

function renderPlayer(player: PlayerRecord): objects.Player {
  const { eventIDs: _eventIDs, ...fields } = player;
  return fields;
}

function statLevel(raw: string): StatLevel {
  if (raw === "") return "all";
  if (!(STAT_LEVELS as readonly string[]).includes(raw)) {
    throw new InvalidArgumentError("statLevel", `expected one of ${STAT_LEVELS.join(", ")}`);
  }
  return raw as StatLevel;
}

function marketPropType(raw: string): PropType | undefined {
  if (raw === "") return undefined;
  if (!(PROP_TYPES as readonly string[]).includes(raw)) {
    throw new InvalidArgumentError("propType", `expected one of ${PROP_TYPES.join(", ")}`);
  }
  return raw as PropType;
}

/**
 * Stable id order; the cursor carries the last id served and is bound to the filters.
 * Filters run lazily, so a page stops as soon as it is full.
 */
function paginate<T, Item>(
  codec: CursorCodec<typeof afterID>,
  filters: object,
  token: string,
  limit: number,
  ordered: T[],
  id: (record: T) => string,
  matches: (record: T) => boolean,
  render: (record: T) => Item | undefined,
): ReadPage<Item> {
  const after = token ? codec.decode(token, filters).after : undefined;
  const start = after === undefined ? 0 : firstAfter(ordered, id, after);
  const items: Item[] = [];
  let lastID = "";
  for (let index = start; index < ordered.length; index++) {
    const record = ordered[index] as T;
    if (!matches(record)) continue;
    const rendered = render(record);
    if (rendered === undefined) continue;
    if (items.length === limit) return { items, nextCursor: codec.encode(filters, { after: lastID }) };
    items.push(rendered);
    lastID = id(record);
  }
  return { items, nextCursor: "" };
}

/** Binary search: index of the first record whose id sorts after `after`. */
function firstAfter<T>(ordered: T[], id: (record: T) => string, after: string): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (id(ordered[mid] as T) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
