import { catalogue, objects, pageLimits } from "@odds/proto";
import { z } from "zod";
import { CatalogueGateway } from "../gateways/catalogue";
import type { DownstreamClients } from "../gateways/clients";
import { HeavyPages } from "../http/heavy-pages";
import { booleanFlag, csvList, cursor, pageLimit } from "../http/params";
import { defineRoute, fromJsonPage, type RouteDefinition, type ReadBounds } from "../http/route";

const { PROP_TYPES, STAT_LEVELS } = objects;

export const sportsQuery = z.object({});

export const leaguesQuery = z.object({
  sportID: csvList().optional(),
  leagueID: csvList().optional(),
});

export const teamsQuery = z.object({
  sportID: csvList().optional(),
  leagueID: csvList().optional(),
  teamID: csvList().optional(),
  limit: pageLimit(pageLimits.PAGE_LIMITS.teams),
  cursor: cursor().optional(),
});

export const playersQuery = z.object({
  teamID: csvList().optional(),
  eventID: csvList().optional(),
  playerID: csvList().optional(),
  leagueID: csvList().optional().meta({ description: "extension; one or comma-separated" }),
  limit: pageLimit(pageLimits.PAGE_LIMITS.players),
  cursor: cursor().optional(),
});

export const statsQuery = z.object({
  statID: csvList().optional(),
  sportID: csvList().optional(),
  statLevel: z
    .enum(STAT_LEVELS, { error: `expected one of ${STAT_LEVELS.join(", ")}` })
    .optional()
    .meta({ description: "used together with sportID; default all" }),
});

export const marketsQuery = z.object({
  oddID: csvList().optional().meta({ description: "PLAYER_ID in the statEntityID slot matches every player" }),
  sportID: csvList().optional(),
  leagueID: csvList().optional(),
  bookmakerID: csvList().optional(),
  statID: csvList().optional(),
  statEntityID: csvList().optional(),
  periodID: csvList().optional(),
  betTypeID: csvList().optional(),
  sideID: csvList().optional(),
  isMainMarket: booleanFlag().optional().meta({ description: "main-period moneyline, spread, over/under only" }),
  isProp: booleanFlag().optional(),
  isSubPeriod: booleanFlag().optional().meta({ description: "non-main period" }),
  propType: z.enum(PROP_TYPES, { error: `expected one of ${PROP_TYPES.join(", ")}` }).optional(),
  isSupported: booleanFlag().optional().meta({ description: "default true when omitted" }),
  limit: pageLimit(pageLimits.PAGE_LIMITS.markets),
  cursor: cursor().optional(),
});

/**
 * A `/markets/` page asking for more than this many markets is heavy (10,000 markets are 4.7 MB at
 * full scale): at most HEAVY_MARKET_PAGES.slots are fetched at once, HEAVY_MARKET_PAGES.queue more
 * wait (each page taking at most `heavyPageMaxMs` in all), the rest are told to retry (see
 * HeavyPages). Answers served from the answer cache never wait.
 * Heavy pages travel on connections of their own, so a small read's answer (teams, sports) never
 * queues behind megabytes of theirs on the wire.
 */
const HEAVY_MARKET_PAGE = 1_000;
const HEAVY_MARKET_PAGES = { slots: 4, queue: 28 } as const;

export function catalogueRoutes(clients: DownstreamClients, bounds: ReadBounds): RouteDefinition[] {
  const gateway = new CatalogueGateway(clients.catalogue);
  const heavyGateway = new CatalogueGateway(clients.catalogueHeavy);
  const heavyMarketPages = new HeavyPages(
    { ...HEAVY_MARKET_PAGES, maxMs: bounds.heavyPageMaxMs },
    `/markets/ pages of more than ${HEAVY_MARKET_PAGE} markets`,
  );
  return [
    defineRoute({
      path: "/sports/",
      summary: "Sports, with whether the plan can read each and its active events",
      tag: "Catalogue",
      query: sportsQuery,
      item: objects.sport,
      errors: [],
      lenientParameters: true,
      load: async (_params, { caller }, _admitted, heldTag) =>
        fromJsonPage(await gateway.listSports({ caller, view: "", ifTag: heldTag })),
    }),
    defineRoute({
      path: "/leagues/",
      summary: "Leagues, with whether the plan can read each and its active events",
      tag: "Catalogue",
      query: leaguesQuery,
      item: objects.league,
      errors: [400],
      load: async (params, { caller }, _admitted, heldTag) =>
        fromJsonPage(
          await gateway.listLeagues({
            caller,
            sportIds: params.sportID ?? [],
            leagueIds: params.leagueID ?? [],
            view: "",
            ifTag: heldTag,
          }),
        ),
    }),
    defineRoute({
      path: "/teams/",
      summary: "Teams of the leagues the plan can read",
      description: "Ordered by teamID. limit defaults to 50; above 250 is 400 Invalid params.",
      tag: "Catalogue",
      query: teamsQuery,
      item: objects.team,
      errors: [400, 500],
      load: async (params, { caller }, _admitted, heldTag) =>
        fromJsonPage(
          await gateway.listTeams(
            catalogue.ListTeamsRequest.create({
              caller,
              ifTag: heldTag,
              sportIds: params.sportID ?? [],
              leagueIds: params.leagueID ?? [],
              teamIds: params.teamID ?? [],
              limit: params.limit,
              cursor: params.cursor ?? "",
            }),
          ),
        ),
    }),
    defineRoute({
      path: "/players/",
      summary: "Players of the leagues the plan can read",
      description: "Ordered by playerID. limit defaults to 50; above 250 is 400 Invalid params.",
      tag: "Catalogue",
      query: playersQuery,
      item: objects.player,
      errors: [400, 500],
      load: async (params, { caller }, _admitted, heldTag) =>
        fromJsonPage(
          await gateway.listPlayers(
            catalogue.ListPlayersRequest.create({
              caller,
              ifTag: heldTag,
              teamIds: params.teamID ?? [],
              eventIds: params.eventID ?? [],
              playerIds: params.playerID ?? [],
              leagueIds: params.leagueID ?? [],
              limit: params.limit,
              cursor: params.cursor ?? "",
            }),
          ),
        ),
    }),
    defineRoute({
      path: "/stats/",
      summary: "Statistics markets are priced on",
      tag: "Catalogue",
      query: statsQuery,
      item: objects.stat,
      errors: [400],
      load: async (params, { caller }, _admitted, heldTag) =>
        fromJsonPage(
          await gateway.listStats({
            caller,
            ifTag: heldTag,
            statIds: params.statID ?? [],
            sportIds: params.sportID ?? [],
            statLevel: params.statLevel ?? "all",
          }),
        ),
    }),
    defineRoute({
      path: "/markets/",
      summary: "Markets with their bookmaker support in the leagues the plan can read",
      description:
        "Ordered by oddID. isSupported defaults to true. limit defaults to 100; above 10000 is 400 Invalid params. " +
        "Bookmakers outside the plan are left out of support and bookmakers.",
      tag: "Catalogue",
      query: marketsQuery,
      item: objects.market,
      errors: [400, 500],
      load: async (params, { caller }, _admitted, heldTag) => {
        const request = catalogue.ListMarketsRequest.create({
          caller,
          ifTag: heldTag,
          oddIds: params.oddID ?? [],
          sportIds: params.sportID ?? [],
          leagueIds: params.leagueID ?? [],
          bookmakerIds: params.bookmakerID ?? [],
          statIds: params.statID ?? [],
          statEntityIds: params.statEntityID ?? [],
          periodIds: params.periodID ?? [],
          betTypeIds: params.betTypeID ?? [],
          sideIds: params.sideID ?? [],
          isMainMarket: params.isMainMarket,
          isProp: params.isProp,
          isSubPeriod: params.isSubPeriod,
          propType: params.propType ?? "",
          isSupported: params.isSupported ?? true,
          limit: params.limit,
          cursor: params.cursor ?? "",
        });
        const page =
          params.limit > HEAVY_MARKET_PAGE
            ? await heavyMarketPages.run(() => heavyGateway.listMarkets(request))
            : await gateway.listMarkets(request);
        return fromJsonPage(page);
      },
    }),
  ] as RouteDefinition[];
}
