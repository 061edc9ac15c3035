import { unaryHandler } from "@odds/platform";
import { planScope, type catalogue, type common } from "@odds/proto";
import type { Logger } from "pino";
import type { CatalogueCycle } from "./domain/catalogue";
import type { ReadPage } from "./domain/reads";
import type { PersistedCatalogue } from "./persisted-catalogue";

/** Thin adapter: RPC messages in, domain calls, rendered contract objects out. */
export function catalogueRpc(service: PersistedCatalogue, logger: Logger): catalogue.CatalogueServiceServer {
  const reads = service.reads;
  return {
    listSports: unaryHandler(logger, async (req: catalogue.ListSportsRequest) =>
      jsonPage(reads.sports(planScope.planScopeOf(req.caller))),
    ),
    listLeagues: unaryHandler(logger, async (req: catalogue.ListLeaguesRequest) =>
      jsonPage(reads.leagues(planScope.planScopeOf(req.caller), { sportIDs: req.sportIds, leagueIDs: req.leagueIds })),
    ),
    listTeams: unaryHandler(logger, async (req: catalogue.ListTeamsRequest) =>
      jsonPage(
        reads.teams(planScope.planScopeOf(req.caller), {
          sportIDs: req.sportIds,
          leagueIDs: req.leagueIds,
          teamIDs: req.teamIds,
          limit: req.limit,
          cursor: req.cursor,
        }),
      ),
    ),
    listPlayers: unaryHandler(logger, async (req: catalogue.ListPlayersRequest) =>
      jsonPage(
        reads.players(planScope.planScopeOf(req.caller), {
          teamIDs: req.teamIds,
          eventIDs: req.eventIds,
          playerIDs: req.playerIds,
          leagueIDs: req.leagueIds,
          limit: req.limit,
          cursor: req.cursor,
        }),
      ),
    ),
    listStats: unaryHandler(logger, async (req: catalogue.ListStatsRequest) =>
      jsonPage(reads.stats({ statIDs: req.statIds, sportIDs: req.sportIds, statLevel: req.statLevel })),
    ),
    listMarkets: unaryHandler(logger, async (req: catalogue.ListMarketsRequest) =>
      jsonPage(
        reads.markets(planScope.planScopeOf(req.caller), {
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
        }),
      ),
    ),
    applyCatalogue: unaryHandler(logger, async (req: catalogue.ApplyCatalogueRequest) => {
      await service.apply(toCycle(req), req.cycleId);
      return {};
    }),
  };
}

function jsonPage(page: ReadPage<unknown>): common.JsonPage {
  return {
    items: page.items.map((item) => Buffer.from(JSON.stringify(item), "utf8")),
    nextCursor: page.nextCursor,
    notice: "",
  };
}

export function toCycle(req: catalogue.ApplyCatalogueRequest): CatalogueCycle {
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
    events: req.events.map((e) => ({
      eventID: e.eventId,
      sportID: e.sportId,
      leagueID: e.leagueId,
      active: e.active,
      // A side's player or team is recognised from the cycle's players and teams (see Catalogue.defineMarkets).
      markets: e.markets.map((m) => ({ oddID: m.oddId, bookmakerIDs: m.bookmakerIds })),
    })),
  };
}
