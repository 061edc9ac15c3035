import { InvalidArgumentError, inSpan, unaryHandler } from "@odds/platform";
import { common, events } from "@odds/proto";
import type { Logger } from "pino";
import type { ReadModelSync } from "./read-model-sync";
import { DEFAULT_LIMIT, type EventQuery, MAX_LIMIT, type PlanScope } from "./query";
import { encodeJsonPage } from "./json-page-wire";
import type { EventReadModel } from "./read-model";

/** Rule 4: what the caller's plan can see. A request without a caller sees nothing. */
export function planOf(caller: common.Caller | undefined): PlanScope {
  const scope = (all: boolean | undefined, ids: string[] | undefined) => (all ? null : new Set(ids ?? []));
  return {
    sportIDs: scope(caller?.allSports, caller?.sportIds),
    leagueIDs: scope(caller?.allLeagues, caller?.leagueIds),
    bookmakerIDs: scope(caller?.allBookmakers, caller?.bookmakerIds),
    fairOdds: caller?.fairOdds ?? false,
  };
}

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

function limitOf(limit: number): number {
  if (limit === 0) return DEFAULT_LIMIT;
  if (limit > MAX_LIMIT) throw new InvalidArgumentError("limit", `at most ${MAX_LIMIT}`);
  return limit;
}

/** Thin adapter from EventsService RPC messages to the read model and the feed. */
export function eventsRpc(logger: Logger, model: EventReadModel, feed: ReadModelSync): events.EventsServiceServer {
  return {
    listEvents: unaryHandler(logger, async (request: events.ListEventsRequest) => {
      const page = model.list(
        queryOf(request),
        planOf(request.caller),
        { limit: limitOf(request.limit), cursor: request.cursor },
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
