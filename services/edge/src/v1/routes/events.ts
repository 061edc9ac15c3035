import { events, pageLimits, v1 } from "@odds/proto";
import { z } from "zod";
import type { DownstreamClients } from "../../gateways/clients";
import { csvList, cursor, dateTime, pageLimit } from "../../http/params";
import { eventStatus, groupBy, v1IdList, v1IdParam } from "../params";
import type { ReadBounds } from "../../http/route";
import { EventsPageLoads, pageOfManyEvents } from "../../routes/events";
import { defineV1Route, fromV1JsonPage, type V1Route } from "../route";

const { V1_PAGE_LIMITS, V1_LOOKUP_MAX_IDS } = pageLimits;

/** An external id as our links give it: the bookmaker, a colon, the bookmaker's own event id. */
const EXTERNAL_ID = /^[a-z0-9_]+:[^\s,:]+$/;

const selection = {
  sport_id: csvList().optional(),
  league_id: csvList().optional(),
  team_id: csvList().optional().meta({ description: "events with any of these teams as participant" }),
  player_id: v1IdList("player").optional(),
  status: eventStatus().optional(),
  starts_after: dateTime().optional().meta({ description: "events starting strictly after" }),
  starts_before: dateTime().optional().meta({ description: "events starting strictly before" }),
};

const pricing = {
  bookmaker: csvList().optional().meta({ description: "prices of these bookmakers only (within the plan)" }),
  market_id: v1IdList("market").optional(),
};

export const v1EventsQuery = z.strictObject({
  event_id: v1IdList("event").optional().meta({ description: "only these events; other selectors are then ignored" }),
  ...selection,
  limit: pageLimit(V1_PAGE_LIMITS.events),
  cursor: cursor().optional(),
});

export const v1EventQuery = z.strictObject({ event_id: v1IdParam("event") });

export const v1LookupQuery = z
  .strictObject({
    id: v1IdParam("event").optional().meta({ description: "one v1 event id" }),
    external_ids: csvList()
      .pipe(
        z
          .array(z.string().regex(EXTERNAL_ID, { error: "expected bookmakerID:id" }))
          .min(1, { error: "expected at least one bookmakerID:id" })
          .max(V1_LOOKUP_MAX_IDS, { error: `at most ${V1_LOOKUP_MAX_IDS} ids` }),
      )
      .optional()
      .meta({ description: `up to ${V1_LOOKUP_MAX_IDS} of the bookmakers' own event ids, written bookmakerID:id` }),
  })
  .refine((query) => (query.id === undefined) !== (query.external_ids === undefined), {
    error: "send exactly one of id and external_ids",
    path: ["id"],
  });

export const v1EventOddsQuery = z.strictObject({
  event_id: v1IdParam("event"),
  ...pricing,
  group_by: groupBy(),
});

export const v1OddsQuery = z.strictObject({
  event_id: v1IdList("event").optional().meta({ description: "only these events; other selectors are then ignored" }),
  ...selection,
  ...pricing,
  group_by: groupBy(),
  limit: pageLimit(V1_PAGE_LIMITS.odds),
  cursor: cursor().optional(),
});

export const v1ResultsQuery = z.strictObject({
  event_id: v1IdList("event").optional().meta({ description: "only these events; other selectors are then ignored" }),
  ...selection,
  limit: pageLimit(V1_PAGE_LIMITS.events),
  cursor: cursor().optional(),
});

type Selection = Partial<z.output<typeof v1OddsQuery>>;

/** The events service's v1 request for a view and the route's validated parameters. */
export function toListEventsV1Request(
  view: "event" | "odds" | "odds_by_bookmaker" | "results",
  params: Selection & { external_ids?: string[] },
  caller: events.ListEventsV1Request["caller"],
): events.ListEventsV1Request {
  return events.ListEventsV1Request.create({
    caller,
    view,
    eventIds: params.event_id ?? [],
    externalIds: params.external_ids ?? [],
    sportIds: params.sport_id ?? [],
    leagueIds: params.league_id ?? [],
    teamIds: params.team_id ?? [],
    playerIds: params.player_id ?? [],
    bookmakerIds: params.bookmaker ?? [],
    marketIds: params.market_id ?? [],
    status: params.status ?? "",
    startsAfterMs: params.starts_after,
    startsBeforeMs: params.starts_before,
    limit: params.limit ?? 0,
    cursor: params.cursor ?? "",
  });
}

const oddsView = (groupBy: v1.V1OddsGrouping) => (groupBy === "bookmaker" ? "odds_by_bookmaker" : "odds");

/**
 * A v1 page is heavy, as v2's are (`isHeavyEventsPage`), when it carries the odds of more than one
 * event, not narrowed to some markets. The event and results views carry no odds.
 */
export function isHeavyV1Page(
  request: Pick<events.ListEventsV1Request, "view" | "eventIds" | "externalIds" | "marketIds" | "limit">,
): boolean {
  if (request.view !== "odds" && request.view !== "odds_by_bookmaker") return false;
  if (request.marketIds.length > 0) return false;
  return pageOfManyEvents(request.eventIds.length + request.externalIds.length, request.limit);
}

export function v1EventsRoutes(clients: DownstreamClients, bounds: ReadBounds): V1Route[] {
  const pages = new EventsPageLoads(clients, bounds.eventPages);
  /** The v1 page of a request, loaded as a heavy events page where it is one. */
  const page = (request: events.ListEventsV1Request) =>
    pages.load(isHeavyV1Page(request), (gateway) => gateway.listEventsV1(request));
  return [
    defineV1Route({
      path: "/events",
      summary: "Events with participants, status and the bookmakers pricing them",
      description:
        "Ordered by starts_at then event. limit defaults to 10, at most 100. Without a date window, event_id " +
        "or a finished status, events that kicked off more than 24 hours ago are left out.",
      tag: "Events",
      query: v1EventsQuery,
      item: v1.v1Event,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }) => fromV1JsonPage(await page(toListEventsV1Request("event", params, caller))),
    }),
    defineV1Route({
      path: "/events/lookup",
      summary: "Events by one v1 id, or by up to 100 of the bookmakers' own event ids (bookmakerID:id)",
      description: "Ids naming nothing (or nothing the plan can see) are left out of data.",
      tag: "Events",
      query: v1LookupQuery,
      item: v1.v1Event,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }) =>
        fromV1JsonPage(
          await page(
            toListEventsV1Request(
              "event",
              { event_id: params.id ? [params.id] : [], external_ids: params.external_ids ?? [], limit: 100 },
              caller,
            ),
          ),
        ),
    }),
    defineV1Route({
      path: "/events/:event_id",
      summary: "One event",
      tag: "Events",
      query: v1EventQuery,
      item: v1.v1Event,
      data: "object",
      errors: [400, 404, 500],
      load: async (params, { caller }) =>
        fromV1JsonPage(await page(toListEventsV1Request("event", { event_id: [params.event_id] }, caller))),
    }),
    defineV1Route({
      path: "/events/:event_id/odds",
      summary: "One event's odds, grouped by market and outcome (or by bookmaker)",
      description:
        "Each price has bookmaker, decimal_odds, implied_probability (1 / decimal_odds) and observed_at; a " +
        "withdrawn, suspended or stale (45 minutes unobserved) price has null decimal_odds, never zero.",
      tag: "Odds",
      query: v1EventOddsQuery,
      item: v1.v1EventOdds,
      data: "object",
      errors: [400, 404, 500],
      load: async (params, { caller }) =>
        fromV1JsonPage(
          await page(
            toListEventsV1Request(oddsView(params.group_by), { ...params, event_id: [params.event_id] }, caller),
          ),
        ),
    }),
    defineV1Route({
      path: "/odds",
      summary: "Odds of many events, one EventOdds per event",
      description: "Ordered by starts_at then event. limit defaults to 10, at most 50.",
      tag: "Odds",
      query: v1OddsQuery,
      item: v1.v1EventOdds,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }) =>
        fromV1JsonPage(await page(toListEventsV1Request(oddsView(params.group_by), params, caller))),
    }),
    defineV1Route({
      path: "/results",
      summary: "Results: scores and a verdict for every outcome, partial while markets are pending",
      description:
        "Events that have started (or were cancelled), ordered by starts_at then event, finished ones included. " +
        "Each outcome's verdict is won, lost, void (the stake is returned) or dead_heat (the payout is scaled by " +
        "dead_heat_factor); a quarter line returns void_fraction of the stake. pending_markets counts the markets " +
        "whose period has not ended. A market is settled once (settled_at); a settled verdict changes only when the " +
        "source marks the results corrected, and each such correction is listed in corrections (corrected_at, the " +
        "scores before and after, the outcomes whose verdict changed). limit defaults to 10, at most 100.",
      tag: "Results",
      query: v1ResultsQuery,
      item: v1.v1Result,
      data: "list",
      errors: [400, 500],
      load: async (params, { caller }) => fromV1JsonPage(await page(toListEventsV1Request("results", params, caller))),
    }),
  ];
}
