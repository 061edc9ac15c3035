import type { handleUnaryCall } from "@grpc/grpc-js";
import { JSON_PAGE_METHODS, unaryHandler, withJsonPageWire, withRequestDecoder } from "@odds/platform";
import { catalogue, common, planScope, type v1 } from "@odds/proto";
import type { Logger } from "pino";
import { normalizeEventState, type EventState } from "./domain/activity";
import type { CatalogueCycle } from "./domain/catalogue";
import type { CatalogueReads, ReadPage } from "./domain/reads";
import { v1Bookmakers, v1Leagues, v1Markets, v1Players, v1Sports, v1Teams } from "./domain/v1-view";
import type { PersistedCatalogue } from "./persisted-catalogue";

/** The CatalogueService as served here: ApplyCatalogue's events reach the handler encoded (see `catalogueServiceDefinition`). */
export type CatalogueServiceHandlers = Omit<catalogue.CatalogueServiceServer, "applyCatalogue"> & {
  applyCatalogue: handleUnaryCall<catalogue.ApplyCatalogueRequestEncoded, catalogue.ApplyCatalogueResponse>;
};

/**
 * The CatalogueService definition, with its pages framed around the kept renderings in one copy
 * (`withJsonPageWire`), and ApplyCatalogue's request decoded with its events left encoded
 * (`ApplyCatalogueRequestEncoded`: the same wire message), each decoded by `toCycle` at its turn.
 */
export const catalogueServiceDefinition = {
  ...withJsonPageWire(catalogue.CatalogueServiceService, JSON_PAGE_METHODS.catalogue),
  applyCatalogue: withRequestDecoder(catalogue.CatalogueServiceService.applyCatalogue, (bytes) =>
    catalogue.ApplyCatalogueRequestEncoded.decode(bytes),
  ),
};

/** Thin adapter: RPC messages in, domain calls, rendered contract objects out. */
export function catalogueRpc(
  service: PersistedCatalogue,
  logger: Logger,
  historyStarts: v1.HistoryStarts,
): CatalogueServiceHandlers {
  const reads = service.reads;
  return {
    listSports: unaryHandler(logger, async (req: catalogue.ListSportsRequest) =>
      taggedPage(reads, "sports", req, () => {
        const scope = planScope.planScopeOf(req.caller);
        return jsonPage(isV1(req) ? v1Sports(reads, scope) : reads.sports(scope));
      }),
    ),
    listLeagues: unaryHandler(logger, async (req: catalogue.ListLeaguesRequest) =>
      taggedPage(reads, "leagues", req, () => {
        const scope = planScope.planScopeOf(req.caller);
        const query = { sportIDs: req.sportIds, leagueIDs: req.leagueIds };
        return jsonPage(isV1(req) ? v1Leagues(reads, scope, query, historyStarts) : reads.leagues(scope, query));
      }),
    ),
    listTeams: unaryHandler(logger, async (req: catalogue.ListTeamsRequest) =>
      taggedPage(reads, "teams", req, () => {
        const scope = planScope.planScopeOf(req.caller);
        const query = {
          sportIDs: req.sportIds,
          leagueIDs: req.leagueIds,
          teamIDs: req.teamIds,
          limit: req.limit,
          cursor: req.cursor,
        };
        return jsonPage(isV1(req) ? v1Teams(reads, scope, query) : reads.teams(scope, query));
      }),
    ),
    listPlayers: unaryHandler(logger, async (req: catalogue.ListPlayersRequest) =>
      taggedPage(reads, "players", req, () => {
        const scope = planScope.planScopeOf(req.caller);
        const query = {
          teamIDs: req.teamIds,
          eventIDs: req.eventIds,
          playerIDs: req.playerIds,
          leagueIDs: req.leagueIds,
          limit: req.limit,
          cursor: req.cursor,
        };
        return jsonPage(isV1(req) ? v1Players(reads, scope, query) : reads.players(scope, query));
      }),
    ),
    listBookmakers: unaryHandler(logger, async (req: catalogue.ListBookmakersRequest) =>
      taggedPage(reads, "bookmakers", req, () =>
        jsonPage(
          v1Bookmakers(reads, planScope.planScopeOf(req.caller), {
            leagueIDs: req.leagueIds,
            bookmakerIDs: req.bookmakerIds,
          }),
        ),
      ),
    ),
    listStats: unaryHandler(logger, async (req: catalogue.ListStatsRequest) =>
      taggedPage(reads, "stats", req, () =>
        jsonPage(reads.stats({ statIDs: req.statIds, sportIDs: req.sportIds, statLevel: req.statLevel })),
      ),
    ),
    listMarkets: unaryHandler(logger, async (req: catalogue.ListMarketsRequest) =>
      taggedPage(reads, "markets", req, () => {
        const scope = planScope.planScopeOf(req.caller);
        const query = {
          oddIDs: req.oddIds,
          sportIDs: req.sportIds,
          leagueIDs: req.leagueIds,
          bookmakerIDs: req.bookmakerIds,
          statIDs: req.statIds,
          statEntityIDs: req.statEntityIds,
          periodIDs: req.periodIds,
          betTypeIDs: req.betTypeIds,
          sideIDs: req.sideIds,
          isMainMarket: req.isMainMarket,
          isProp: req.isProp,
          isSubPeriod: req.isSubPeriod,
          propType: req.propType,
          isSupported: req.isSupported,
          limit: req.limit,
          cursor: req.cursor,
        };
        if (isV1(req)) return jsonPage(v1Markets(reads, scope, query));
        const page = reads.markets(scope, query);
        // Markets are kept rendered: their bytes go out as they are.
        return common.JsonPage.create({ items: page.items.map((market) => market.json), nextCursor: page.nextCursor });
      }),
    ),
    applyCatalogue: unaryHandler(logger, async (req: catalogue.ApplyCatalogueRequestEncoded) => {
      await service.apply(toCycle(req), req.cycleId);
      return {};
    }),
  };
}

/**
 * A list request's page, tagged by the catalogue it is read from and the request (`CatalogueReads.tagged`): the
 * request as asked, less the tag it names and the key's id (its plan, which the caller carries, decides the page;
 * every key on a plan shares it). A request naming the page's tag gets an unchanged answer with no items.
 */
function taggedPage(
  reads: CatalogueReads,
  method: string,
  request: { caller?: common.Caller | undefined; ifTag?: string | undefined },
  read: () => common.JsonPage,
): common.JsonPage {
  const { ifTag, caller, ...query } = request;
  const asked = { method, caller: caller ? { ...caller, keyId: "" } : null, query };
  const answer = reads.tagged(asked, ifTag, read);
  if (answer.unchanged) return common.JsonPage.create({ tag: answer.tag, unchanged: true });
  return { ...answer.page, tag: answer.tag };
}

/** Whether the request asks for the v1 preview's objects. */
function isV1(req: { view: string }): boolean {
  return req.view === "v1";
}

function jsonPage(page: ReadPage<unknown>): common.JsonPage {
  return common.JsonPage.create({
    items: page.items.map((item) => Buffer.from(JSON.stringify(item), "utf8")),
    nextCursor: page.nextCursor,
  });
}

export function toCycle(req: catalogue.ApplyCatalogueRequestEncoded): CatalogueCycle {
  return {
    sports: req.sports.map((s) => ({ sportID: s.sportId, name: s.name, shortName: s.shortName })),
    leagues: req.leagues.map((l) => ({
      leagueID: l.leagueId,
      sportID: l.sportId,
      name: l.name,
      shortName: l.shortName,
    })),
    teams: req.teams.map((t) => ({
      teamID: t.teamId,
      sportID: t.sportId,
      leagueID: t.leagueId,
      names: { long: t.longName, medium: t.mediumName, short: t.shortName },
      colors: {
        primary: t.primaryColor,
        secondary: t.secondaryColor,
        primaryContrast: t.primaryContrastColor,
        secondaryContrast: t.secondaryContrastColor,
      },
      statEntityID: t.statEntityId,
    })),
    players: req.players.map((p) => ({
      playerID: p.playerId,
      teamID: p.teamId,
      sportID: p.sportId,
      leagueID: p.leagueId,
      name: p.name,
      firstName: p.firstName,
      lastName: p.lastName,
      position: p.position,
      jerseyNumber: p.jerseyNumber,
      eventIDs: p.eventIds,
    })),
    stats: req.stats.map((s) => ({
      statID: s.statId,
      supportedLevels: { all: s.levelAll, team: s.levelTeam, player: s.levelPlayer },
      displays: { short: s.displayShort, long: s.displayLong },
      sportIDs: s.sportIds,
    })),
    // Decoded one at a time into the shared, normalised state: each event's decoded objects and
    // strings are garbage by the next one.
    events: req.events.map((encoded) => normalizeEventState(eventStateOf(catalogue.EventMarkets.decode(encoded)))),
  };
}

function eventStateOf(e: catalogue.EventMarkets): EventState {
  return {
    eventID: e.eventId,
    sportID: e.sportId,
    leagueID: e.leagueId,
    active: e.active,
    // A side's player or team is recognised from the cycle's players and teams (see Catalogue.defineMarkets).
    markets: e.markets.map((m) => ({ oddID: m.oddId, bookmakerIDs: m.bookmakerIds })),
  };
}
