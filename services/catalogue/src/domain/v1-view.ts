import { CursorCodec, requestedPageLimit } from "@odds/platform";
import { pageLimits, planScope, v1 } from "@odds/proto";
import { z } from "zod";
import type { PlayerRecord } from "./catalogue";
import type { MarketInView } from "./market-views";
import type { CatalogueReads, MarketQuery, PlayerQuery, ReadPage, TeamQuery } from "./reads";

const { bookmakerVisible, leagueVisible } = planScope;
type PlanScope = planScope.PlanScope;
const { V1_PAGE_LIMITS } = pageLimits;

/**
 * The v1 preview's catalogue objects, rendered from the same records and reads as v2's: the
 * selection rules stay in CatalogueReads, this only names things in v1's terms and ids.
 */

const afterID = z.object({ after: z.string().min(1) });
const marketCursor = new CursorCodec("catalogue.v1.markets", afterID);

/** pl_ and ev_ ids of one catalogue snapshot, derived from its stored records (the same after every restart). */
const idIndexes = new WeakMap<readonly PlayerRecord[], { players: Map<string, string>; events: Map<string, string> }>();

function indexesOf(players: readonly PlayerRecord[]) {
  let index = idIndexes.get(players);
  if (!index) {
    index = { players: new Map(), events: new Map() };
    for (const player of players) {
      index.players.set(v1.v1Id("player", player.playerID), player.playerID);
      for (const eventID of player.eventIDs) index.events.set(v1.v1Id("event", eventID), eventID);
    }
    idIndexes.set(players, index);
  }
  return index;
}

/** Internal ids of the v1 ids asked for; an id naming nothing (a v2 id included) becomes one that matches nothing. */
function resolve(ids: string[], index: Map<string, string>): string[] {
  return ids.map((id) => index.get(id) ?? v1.unresolvedV1Id(id));
}

export function v1Sports(reads: CatalogueReads, scope: PlanScope): ReadPage<v1.V1Sport> {
  return {
    items: reads.sports(scope).items.map((sport): v1.V1Sport => ({
      sport_id: sport.sportID,
      name: sport.name,
      short_name: sport.shortName,
      enabled: sport.enabled,
      active_events: sport.activeEvents,
    })),
    nextCursor: "",
  };
}

export function v1Leagues(
  reads: CatalogueReads,
  scope: PlanScope,
  query: Parameters<CatalogueReads["leagues"]>[1],
  historyStarts: v1.HistoryStarts,
) {
  const page = reads.leagues(scope, query);
  return {
    items: page.items.map((league): v1.V1League => ({
      league_id: league.leagueID,
      sport_id: league.sportID,
      name: league.name,
      short_name: league.shortName,
      enabled: league.enabled,
      active_events: league.activeEvents,
      history_start: historyStarts.dayOf(league.leagueID),
    })),
    nextCursor: "",
  };
}

export function v1Teams(reads: CatalogueReads, scope: PlanScope, query: TeamQuery): ReadPage<v1.V1Team> {
  const page = reads.teams(scope, { ...query, limit: requestedPageLimit(query.limit, V1_PAGE_LIMITS.teams) });
  return {
    items: page.items.map((team): v1.V1Team => ({
      team_id: team.teamID,
      sport_id: team.sportID,
      league_id: team.leagueID,
      name: team.names.long,
      medium_name: team.names.medium,
      short_name: team.names.short,
      colors: { primary: team.colors.primary ?? null, secondary: team.colors.secondary ?? null },
    })),
    nextCursor: page.nextCursor,
  };
}

/** playerIDs and eventIDs of the query are v1 ids (pl_, ev_). */
export function v1Players(reads: CatalogueReads, scope: PlanScope, query: PlayerQuery) {
  const index = indexesOf(reads.snapshot().ordered<PlayerRecord>("players", (p) => p.playerID));
  const page = reads.players(scope, {
    ...query,
    playerIDs: resolve(query.playerIDs, index.players),
    eventIDs: resolve(query.eventIDs, index.events),
    limit: requestedPageLimit(query.limit, V1_PAGE_LIMITS.players),
  });
  return {
    items: page.items.map((player): v1.V1Player => ({
      player_id: v1.v1Id("player", player.playerID),
      team_id: player.teamID,
      sport_id: player.sportID,
      league_id: player.leagueID,
      name: player.name,
      first_name: player.firstName,
      last_name: player.lastName,
      position: player.position ?? null,
      jersey_number: player.jerseyNumber ?? null,
    })),
    nextCursor: page.nextCursor,
  };
}

/**
 * v1 markets: every side of a market (one marketGroupID) is one market with its outcomes. The
 * sides are selected by the v2 rules (filters, plan, support), then grouped; paging is over groups.
 */
export function v1Markets(reads: CatalogueReads, scope: PlanScope, query: MarketQuery): ReadPage<v1.V1Market> {
  const limit = requestedPageLimit(query.limit, V1_PAGE_LIMITS.markets);
  const { cursor, limit: _limit, ...filters } = query;
  const after = cursor ? marketCursor.decode(cursor, filters).after : undefined;
  const groups = new Map<string, MarketInView[]>();
  let token = "";
  do {
    const page = reads.markets(scope, { ...filters, limit: pageLimits.PAGE_LIMITS.markets.max, cursor: token });
    for (const side of page.items) {
      const groupID = side.definition.marketGroupID;
      const group = groups.get(groupID) ?? [];
      group.push(side);
      groups.set(groupID, group);
    }
    token = page.nextCursor;
  } while (token);
  const ordered = [...groups.keys()].sort();
  const start = after === undefined ? 0 : ordered.findIndex((id) => id > after);
  const served = start < 0 ? [] : ordered.slice(start, start + limit);
  const more = start >= 0 && start + limit < ordered.length;
  return {
    items: served.map((groupID) => renderMarket(groupID, groups.get(groupID) as MarketInView[])),
    nextCursor: more ? marketCursor.encode(filters, { after: served[served.length - 1] as string }) : "",
  };
}

function renderMarket(groupID: string, sides: MarketInView[]): v1.V1Market {
  const first = (sides[0] as MarketInView).definition;
  const union = (lists: (readonly string[])[]) => [...new Set(lists.flat())].sort();
  return {
    market_id: v1.v1Id("market", groupID),
    name: first.marketGroupName,
    stat_id: first.statID,
    period_id: first.periodID,
    bet_type: first.betTypeID,
    player_id: first.playerID ? v1.v1Id("player", first.playerID) : null,
    team_id: first.teamID ?? null,
    is_main: first.isMainMarket,
    is_prop: first.isProp,
    prop_type: first.propType ?? null,
    outcomes: sides.map(({ definition }) => ({
      outcome_id: v1.v1Id("outcome", definition.oddID),
      side: definition.sideID,
    })),
    leagues: union(sides.map((side) => side.supportLeagueIDs)),
    bookmakers: union(sides.map((side) => side.bookmakers)),
    active_events: Math.max(...sides.map((side) => side.activeEvents)),
  };
}

/** Bookmakers pricing any market in a league the plan can see, with those leagues and how many markets. */
export function v1Bookmakers(
  reads: CatalogueReads,
  scope: PlanScope,
  query: { leagueIDs: string[]; bookmakerIDs: string[] },
): ReadPage<v1.V1Bookmaker> {
  const catalogue = reads.snapshot();
  const found = new Map<string, { leagues: Set<string>; markets: Set<string> }>();
  for (const market of catalogue.ordered<{ oddID: string; marketGroupID: string }>("markets", (m) => m.oddID)) {
    for (const activity of catalogue.activity.marketLeagues(market.oddID)) {
      if (!leagueVisible(scope, activity.leagueID, activity.sportID)) continue;
      if (query.leagueIDs.length > 0 && !query.leagueIDs.includes(activity.leagueID)) continue;
      for (const [bookmakerID, events] of activity.bookmakers) {
        if (events === 0 || !bookmakerVisible(scope, bookmakerID)) continue;
        if (query.bookmakerIDs.length > 0 && !query.bookmakerIDs.includes(bookmakerID)) continue;
        const entry = found.get(bookmakerID) ?? { leagues: new Set(), markets: new Set() };
        entry.leagues.add(activity.leagueID);
        entry.markets.add(market.marketGroupID);
        found.set(bookmakerID, entry);
      }
    }
  }
  return {
    items: [...found.keys()].sort().map((bookmakerID): v1.V1Bookmaker => ({
      bookmaker_id: bookmakerID,
      leagues: [...(found.get(bookmakerID)?.leagues ?? [])].sort(),
      markets: found.get(bookmakerID)?.markets.size ?? 0,
    })),
    nextCursor: "",
  };
}
