import { catalogue, pageLimits, v1 } from "@odds/proto";
import { z } from "zod";
import { CatalogueGateway } from "../../gateways/catalogue";
import type { DownstreamClients } from "../../gateways/clients";
import { booleanFlag, csvList, cursor, pageLimit } from "../../http/params";
import { v1IdList } from "../params";
import { defineV1Route, fromV1JsonPage, type V1Route } from "../route";

const { V1_PAGE_LIMITS } = pageLimits;
const VIEW = "v1";

/** v1 queries are strict: a parameter the route does not know is a 400 naming it, not silently ignored. */
export const v1SportsQuery = z.strictObject({});

export const v1LeaguesQuery = z.strictObject({
  sport_id: csvList().optional(),
  league_id: csvList().optional(),
});

export const v1BookmakersQuery = z.strictObject({
  league_id: csvList().optional(),
  bookmaker: csvList().optional(),
});

export const v1TeamsQuery = z.strictObject({
  sport_id: csvList().optional(),
  league_id: csvList().optional(),
  team_id: csvList().optional(),
  limit: pageLimit(V1_PAGE_LIMITS.teams),
  cursor: cursor().optional(),
});

export const v1PlayersQuery = z.strictObject({
  league_id: csvList().optional(),
  team_id: csvList().optional(),
  event_id: v1IdList("event").optional(),
  player_id: v1IdList("player").optional(),
  limit: pageLimit(V1_PAGE_LIMITS.players),
  cursor: cursor().optional(),
});

export const v1MarketsQuery = z.strictObject({
  sport_id: csvList().optional(),
  league_id: csvList().optional(),
  bookmaker: csvList().optional(),
  stat_id: csvList().optional(),
  period_id: csvList().optional(),
  bet_type: csvList().optional(),
  is_main: booleanFlag().optional(),
  is_prop: booleanFlag().optional(),
  prop_type: z
    .enum(["game_prop", "team_prop", "player_prop", "other_prop"], {
      error: "expected one of game_prop, team_prop, player_prop, other_prop",
    })
    .optional(),
  limit: pageLimit(V1_PAGE_LIMITS.markets),
  cursor: cursor().optional(),
});

export function v1CatalogueRoutes(clients: DownstreamClients): V1Route[] {
  const gateway = new CatalogueGateway(clients.catalogue);
  return [
    defineV1Route({
      path: "/sports",
      summary: "Sports, with whether the plan can read each and its active events",
      tag: "Catalogue",
      query: v1SportsQuery,
      item: v1.v1Sport,
      data: "list",
      errors: [400, 500],
      load: async (_params, { caller }, heldTag) =>
        fromV1JsonPage(await gateway.listSports({ caller, view: VIEW, ifTag: heldTag })),
    }),
    defineV1Route({
      path: "/leagues",
      summary: "Leagues, with whether the plan can read each and its active events",
      tag: "Catalogue",
      query: v1LeaguesQuery,
      item: v1.v1League,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listLeagues({
            caller,
            ifTag: heldTag,
            sportIds: params.sport_id ?? [],
            leagueIds: params.league_id ?? [],
            view: VIEW,
          }),
        ),
    }),
    defineV1Route({
      path: "/bookmakers",
      summary: "Bookmakers pricing markets in the leagues the plan can read",
      tag: "Catalogue",
      query: v1BookmakersQuery,
      item: v1.v1Bookmaker,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listBookmakers({
            caller,
            ifTag: heldTag,
            leagueIds: params.league_id ?? [],
            bookmakerIds: params.bookmaker ?? [],
          }),
        ),
    }),
    defineV1Route({
      path: "/markets",
      summary: "Markets (every outcome of one market together) priced in the leagues the plan can read",
      description: "Ordered by market. limit defaults to 100, at most 1000.",
      tag: "Catalogue",
      query: v1MarketsQuery,
      item: v1.v1Market,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listMarkets(
            catalogue.ListMarketsRequest.create({
              caller,
              ifTag: heldTag,
              sportIds: params.sport_id ?? [],
              leagueIds: params.league_id ?? [],
              bookmakerIds: params.bookmaker ?? [],
              statIds: params.stat_id ?? [],
              periodIds: params.period_id ?? [],
              betTypeIds: params.bet_type ?? [],
              isMainMarket: params.is_main,
              isProp: params.is_prop,
              propType: params.prop_type ?? "",
              isSupported: true,
              limit: params.limit,
              cursor: params.cursor ?? "",
              view: VIEW,
            }),
          ),
        ),
    }),
    defineV1Route({
      path: "/teams",
      summary: "Teams of the leagues the plan can read",
      description: "Ordered by team_id. limit defaults to 50, at most 250.",
      tag: "Catalogue",
      query: v1TeamsQuery,
      item: v1.v1Team,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listTeams(
            catalogue.ListTeamsRequest.create({
              caller,
              ifTag: heldTag,
              sportIds: params.sport_id ?? [],
              leagueIds: params.league_id ?? [],
              teamIds: params.team_id ?? [],
              limit: params.limit,
              cursor: params.cursor ?? "",
              view: VIEW,
            }),
          ),
        ),
    }),
    defineV1Route({
      path: "/players",
      summary: "Players of the leagues the plan can read",
      description: "Ordered by the internal player order. limit defaults to 50, at most 250.",
      tag: "Catalogue",
      query: v1PlayersQuery,
      item: v1.v1Player,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listPlayers(
            catalogue.ListPlayersRequest.create({
              caller,
              ifTag: heldTag,
              leagueIds: params.league_id ?? [],
              teamIds: params.team_id ?? [],
              eventIds: params.event_id ?? [],
              playerIds: params.player_id ?? [],
              limit: params.limit,
              cursor: params.cursor ?? "",
              view: VIEW,
            }),
          ),
        ),
    }),
  ];
}
