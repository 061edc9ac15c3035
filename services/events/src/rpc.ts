import { inSpan, requestedPageLimit, unaryHandler } from "@odds/platform";
import { common, events, pageLimits, planScope } from "@odds/proto";
import type { Logger } from "pino";
import type { ReadModelSync } from "./read-model-sync";
import type { EventQuery } from "./query";
import { encodeJsonPage } from "./json-page-wire";
import type { EventReadModel } from "./read-model";

export function queryOf(request: events.ListEventsRequest): EventQuery {
  return {
    eventIDs: request.eventIds,
    sportIDs: request.sportIds,
    leagueIDs: request.leagueIds,
    type: request.type === "" ? undefined : request.type,
    oddsAvailable: request.oddsAvailable,
    oddsPresent: request.oddsPresent,
    oddIDs: request.oddIds,
    includeOpposingOdds: request.includeOpposingOdds,
    includeAltLines: request.includeAltLines,
    bookmakerIDs: request.bookmakerIds,
    teamIDs: request.teamIds,
    playerIDs: request.playerIds,
    finalized: request.finalized,
    live: request.live,
    started: request.started,
    ended: request.ended,
    cancelled: request.cancelled,
    startsAfterMs: request.startsAfterMs,
    startsBeforeMs: request.startsBeforeMs,
    includeFinished: request.includeFinished,
  };
}

/** Thin adapter from EventsService RPC messages to the read model and the feed. */
export function eventsRpc(logger: Logger, model: EventReadModel, feed: ReadModelSync): events.EventsServiceServer {
  return {
    listEvents: unaryHandler(logger, async (request: events.ListEventsRequest) => {
      const page = model.list(
        queryOf(request),
        planScope.planScopeOf(request.caller),
        { limit: requestedPageLimit(request.limit, pageLimits.PAGE_LIMITS.events), cursor: request.cursor },
        Date.now(),
      );
      return common.JsonPage.create({ items: page.items, nextCursor: page.nextCursor });
    }),
    applyCycle: unaryHandler(logger, (request: events.ApplyCycleRequest) =>
      inSpan("events.applyCycle", { "odds.cycle_id": request.cycleId, "odds.events": request.events.length }, () =>
        feed.applyCycle(request),
      ),
    ),
    getFeedStatus: unaryHandler(logger, async () => events.FeedStatus.create(feed.status())),
  };
}

/** The EventsService definition, with ListEvents pages framed around the already-rendered items in one copy. */
export const eventsServiceDefinition: typeof events.EventsServiceService = {
  ...events.EventsServiceService,
  listEvents: { ...events.EventsServiceService.listEvents, responseSerialize: encodeJsonPage },
};
