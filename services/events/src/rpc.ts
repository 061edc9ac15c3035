import {
  InvalidArgumentError,
  inSpan,
  JSON_PAGE_METHODS,
  requestedPageLimit,
  serverStreamingHandler,
  unaryHandler,
  withJsonPageWire,
  withRequestDecoder,
} from "@odds/platform";
import { common, events, pageLimits, planScope, v1 } from "@odds/proto";
import type { handleUnaryCall } from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { ReadModelSync } from "./read-model-sync";
import type { EventQuery } from "./query";
import type { EventReadModel, V1Request, V1View } from "./read-model";
import { pageItems } from "./metrics";

const V1_VIEWS: readonly V1View[] = ["event", "odds", "odds_by_bookmaker", "results"];
/** Statuses whose events kicked off long ago: asking for them lifts the 24-hour cut-off. */
const FINISHED_STATUSES: ReadonlySet<string> = new Set(["ended", "finalized", "cancelled"]);

/** A v1 request as the read model's query: v1 ids resolved to internal ids through the model's index. */
export function queryOfV1(
  request: events.ListEventsV1Request,
  model: EventReadModel,
): { query: EventQuery; v1: V1Request } {
  if (!(V1_VIEWS as readonly string[]).includes(request.view)) {
    throw new InvalidArgumentError("view", `expected one of ${V1_VIEWS.join(", ")}`);
  }
  if (request.status !== "" && !(v1.V1_EVENT_STATUSES as readonly string[]).includes(request.status)) {
    throw new InvalidArgumentError("status", `expected one of ${v1.V1_EVENT_STATUSES.join(", ")}`);
  }
  const eventIDs = [
    ...model.resolveV1("events", request.eventIds),
    ...model.resolveV1("external", request.externalIds),
  ];
  return {
    query: {
      eventIDs,
      sportIDs: request.sportIds,
      leagueIDs: request.leagueIds,
      oddIDs: [],
      includeOpposingOdds: false,
      includeAltLines: false,
      bookmakerIDs: request.bookmakerIds,
      teamIDs: request.teamIds,
      playerIDs: model.resolveV1("players", request.playerIds),
      startsAfterMs: request.startsAfterMs,
      startsBeforeMs: request.startsBeforeMs,
      // Results are read after the fact: the 24-hour cut-off does not hide them.
      includeFinished: FINISHED_STATUSES.has(request.status) || request.view === "results",
    },
    v1: {
      view: request.view as V1View,
      marketIDs: request.marketIds.length > 0 ? new Set(request.marketIds) : null,
      ...(request.status ? { status: request.status } : {}),
    },
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

/** The EventsService as served here: ApplyCycle's events reach the handler encoded (see `eventsServiceDefinition`). */
export type EventsServiceHandlers = Omit<events.EventsServiceServer, "applyCycle"> & {
  applyCycle: handleUnaryCall<events.ApplyCycleRequestEncoded, events.ApplyCycleResponse>;
};

/** Thin adapter from EventsService RPC messages to the read model and the feed. */
export function eventsRpc(logger: Logger, model: EventReadModel, feed: ReadModelSync): EventsServiceHandlers {
  return {
    listEvents: unaryHandler(logger, async (request: events.ListEventsRequest) => {
      const page = model.list(
        queryOf(request),
        planScope.planScopeOf(request.caller),
        { limit: requestedPageLimit(request.limit, pageLimits.PAGE_LIMITS.events), cursor: request.cursor },
        Date.now(),
        { tag: request.ifTag, itemTags: request.heldItemTags },
      );
      const held = page.items.filter((item) => item.length === 0).length;
      if (held > 0) pageItems.inc({ item: "held" }, held);
      if (page.items.length > held) pageItems.inc({ item: "rendered" }, page.items.length - held);
      return common.JsonPage.create({
        items: page.items,
        nextCursor: page.nextCursor,
        tag: page.tag,
        unchanged: page.unchanged,
        itemTags: page.itemTags,
      });
    }),
    listEventsV1: unaryHandler(logger, async (request: events.ListEventsV1Request) => {
      const { query, v1: v1Request } = queryOfV1(request, model);
      const bounds =
        v1Request.view === "event" || v1Request.view === "results"
          ? pageLimits.V1_PAGE_LIMITS.events
          : pageLimits.V1_PAGE_LIMITS.odds;
      const page = model.listV1(
        query,
        v1Request,
        planScope.planScopeOf(request.caller),
        { limit: requestedPageLimit(request.limit, bounds), cursor: request.cursor },
        Date.now(),
      );
      return common.JsonPage.create({
        items: page.items,
        nextCursor: page.nextCursor,
        objects: page.objects,
        // Read in the same turn as the page: the cycle its odds are of.
        cycleAtMs: model.feedState.lastCycleAtMs,
      });
    }),
    applyCycle: unaryHandler(logger, (request: events.ApplyCycleRequestEncoded) =>
      inSpan("events.applyCycle", { "odds.cycle_id": request.cycleId, "odds.events": request.events.length }, () =>
        feed.applyCycle(request),
      ),
    ),
    getFeedStatus: unaryHandler(logger, async () => events.FeedStatus.create(feed.status())),
    watchFeedStatus: serverStreamingHandler(logger, (_request, _call, cancelled) => feed.watchStatus(cancelled)),
  };
}

/**
 * The EventsService definition, with its pages framed around the already-rendered items in one copy
 * (`withJsonPageWire`), and ApplyCycle's request decoded with its events left encoded
 * (`ApplyCycleRequestEncoded`: the same wire message), each decoded by the apply at its turn.
 */
export const eventsServiceDefinition = {
  ...withJsonPageWire(events.EventsServiceService, JSON_PAGE_METHODS.events),
  applyCycle: withRequestDecoder(events.EventsServiceService.applyCycle, (bytes) =>
    events.ApplyCycleRequestEncoded.decode(bytes),
  ),
};
