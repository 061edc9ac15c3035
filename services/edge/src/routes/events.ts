import { events } from "@odds/proto";
import { z } from "zod";
import { EventsGateway } from "../gateways/events";
import type { DownstreamClients } from "../gateways/clients";
import { booleanFlag, csvList, cursor, dateTime, pageLimit } from "../http/params";
import { defineRoute, fromJsonPage, type RouteDefinition } from "../http/route";

/** Every query parameter of GET /v2/events/, aliases included. */
export const eventsQuery = z.object({
  eventID: z.string().min(1).optional().meta({ description: "one event; with eventIDs, the only selector (rule 1)" }),
  eventIDs: csvList().optional(),
  sportID: csvList().optional(),
  leagueID: csvList().optional(),
  type: z.enum(["match", "tournament", "prop"], { error: "expected match, tournament or prop" }).optional(),
  oddsAvailable: booleanFlag().optional(),
  oddsPresent: booleanFlag().optional(),
  oddID: csvList()
    .optional()
    .meta({ description: "odds to include; PLAYER_ID in the statEntityID slot matches every player" }),
  oddIDs: csvList().optional().meta({ description: "alias of oddID" }),
  includeOpposingOdds: booleanFlag().optional(),
  includeOpposingOddIDs: booleanFlag().optional().meta({ description: "alias of includeOpposingOdds" }),
  includeAltLines: booleanFlag().optional(),
  expandResults: booleanFlag().optional().meta({ description: "accepted, no effect" }),
  includeOpenCloseOdds: booleanFlag()
    .optional()
    .meta({ description: "accepted, no effect; open/close fields stay absent" }),
  bookmakerID: csvList().optional(),
  teamID: csvList().optional(),
  playerID: csvList().optional().meta({ description: "events with these players, and only their odds" }),
  finalized: booleanFlag().optional(),
  live: booleanFlag().optional(),
  started: booleanFlag().optional(),
  ended: booleanFlag().optional(),
  cancelled: booleanFlag().optional(),
  startsAfter: dateTime().optional().meta({ description: "events starting strictly after" }),
  startsBefore: dateTime().optional().meta({ description: "events starting strictly before" }),
  includeFinished: booleanFlag().optional().meta({ description: "extension: lift the 24-hour cut-off" }),
  limit: pageLimit(10, 100),
  cursor: cursor().optional(),
});

export type EventsQuery = z.output<typeof eventsQuery>;

/** Merges eventID/eventIDs and the aliases into the events service's request. */
export function toListEventsRequest(params: EventsQuery): Omit<events.ListEventsRequest, "caller"> {
  const merged = (...lists: (string[] | undefined)[]) => [...new Set(lists.flatMap((list) => list ?? []))];
  return events.ListEventsRequest.create({
    eventIds: merged(params.eventID ? [params.eventID] : undefined, params.eventIDs),
    sportIds: params.sportID ?? [],
    leagueIds: params.leagueID ?? [],
    type: params.type ?? "",
    oddsAvailable: params.oddsAvailable,
    oddsPresent: params.oddsPresent,
    oddIds: merged(params.oddID, params.oddIDs),
    includeOpposingOdds: (params.includeOpposingOdds ?? false) || (params.includeOpposingOddIDs ?? false),
    includeAltLines: params.includeAltLines ?? false,
    bookmakerIds: params.bookmakerID ?? [],
    teamIds: params.teamID ?? [],
    playerIds: params.playerID ?? [],
    finalized: params.finalized,
    live: params.live,
    started: params.started,
    ended: params.ended,
    cancelled: params.cancelled,
    startsAfterMs: params.startsAfter,
    startsBeforeMs: params.startsBefore,
    includeFinished: params.includeFinished ?? false,
    limit: params.limit,
    cursor: params.cursor ?? "",
  });
}

const bookmakerOdds = z
  .object({
    bookmakerID: z.string(),
    odds: z.string().meta({ description: "American price" }),
    decimal: z.number(),
    overUnder: z.string().optional(),
    spread: z.string().optional(),
    available: z.boolean(),
    lastUpdatedAt: z.iso.datetime(),
    eventName: z.string(),
    deeplink: z.string().optional(),
  })
  .meta({ id: "ByBookmakerOdds" });

const oddsSide = z
  .object({
    oddID: z.string(),
    opposingOddID: z.string().nullable(),
    marketName: z.string(),
    statID: z.string(),
    statEntityID: z.string(),
    periodID: z.string(),
    betTypeID: z.string(),
    sideID: z.string(),
    playerID: z.string().optional(),
    bookOdds: z.string(),
    bookOddsAvailable: z.boolean(),
    bookSpread: z.string().nullable(),
    bookOverUnder: z.string().nullable(),
    fairOdds: z.string().nullable(),
    fairOddsAvailable: z.boolean(),
    fairSpread: z.string().nullable(),
    fairOverUnder: z.string().nullable(),
    started: z.boolean(),
    ended: z.boolean(),
    cancelled: z.boolean(),
    scoringSupported: z.boolean(),
    byBookmaker: z.record(z.string(), bookmakerOdds),
    altLines: z
      .record(z.string(), z.object({ byBookmaker: z.record(z.string(), bookmakerOdds) }))
      .optional()
      .meta({ description: "present only with includeAltLines=true" }),
  })
  .meta({ id: "Odds" });

const team = z.object({
  teamID: z.string(),
  names: z.object({ long: z.string(), medium: z.string(), short: z.string() }),
  colors: z.object({
    primary: z.string().optional(),
    secondary: z.string().optional(),
    primaryContrast: z.string().optional(),
    secondaryContrast: z.string().optional(),
  }),
  statEntityID: z.string(),
  score: z.number().nullable(),
});

/** The contract's Event, for the OpenAPI document. */
export const eventItem = z
  .object({
    eventID: z.string(),
    sportID: z.string(),
    leagueID: z.string(),
    type: z.enum(["match", "tournament", "prop"]),
    status: z.object({
      started: z.boolean(),
      ended: z.boolean(),
      live: z.boolean(),
      cancelled: z.boolean(),
      delayed: z.boolean(),
      finalized: z.boolean(),
      completed: z.boolean(),
      startsAt: z.iso.datetime(),
      oddsPresent: z.boolean(),
      oddsAvailable: z.boolean(),
      currentPeriodID: z.string().nullable(),
      periods: z.object({ started: z.array(z.string()), ended: z.array(z.string()) }),
      displayShort: z.string(),
      displayLong: z.string(),
    }),
    info: z.object({
      displayName: z.string(),
      commenceTime: z.iso.datetime(),
      lastUpdatedAt: z.iso.datetime(),
      stale: z.boolean().meta({ description: "no source write for 45 minutes" }),
      bookmakersPresent: z.array(z.string()),
      sourceBookmakerCount: z.number().int(),
    }),
    teams: z.object({ home: team.nullable(), away: team.nullable() }),
    players: z.record(
      z.string(),
      z.object({
        playerID: z.string(),
        teamID: z.string(),
        name: z.string(),
        firstName: z.string(),
        lastName: z.string(),
      }),
    ),
    results: z
      .record(z.string(), z.record(z.string(), z.record(z.string(), z.number())))
      .meta({ description: "{periodID}.{statEntityID}.{statID} -> number" }),
    odds: z.record(z.string(), oddsSide),
    links: z.object({
      bookmakers: z.record(z.string(), z.string()),
      betslip: z.record(z.string(), z.object({ kind: z.string(), urlTemplate: z.string().nullable() })),
    }),
  })
  .meta({ id: "Event" });

export function eventsRoutes(clients: DownstreamClients): RouteDefinition[] {
  const gateway = new EventsGateway(clients.events);
  return [
    defineRoute({
      path: "/events/",
      summary: "Events with status, teams, players, results and odds",
      description:
        "Ordered by startsAt then eventID. limit defaults to 10; above 100 is 400 Invalid params. " +
        "eventID/eventIDs are then the only selectors; oddID, bookmakerID, playerID, includeAltLines and " +
        "includeOpposingOdds still shape the odds.",
      tag: "Events",
      query: eventsQuery,
      item: eventItem,
      errors: [400, 500],
      load: async (params, caller) =>
        fromJsonPage(await gateway.listEvents({ ...toListEventsRequest(params), caller })),
    }) as RouteDefinition,
  ];
}
