import { type common, events, objects, pageLimits } from "@odds/proto";
import { z } from "zod";
import { EventsGateway } from "../gateways/events";
import type { DownstreamClients } from "../gateways/clients";
import { booleanFlag, csvList, cursor, dateTime, pageLimit } from "../http/params";
import { HeavyPages } from "../http/heavy-pages";
import { defineRoute, fromJsonPage, type RouteDefinition, type ReadBounds } from "../http/route";

/** Every query parameter of GET /v2/events/, aliases included. */
export const eventsQuery = z.object({
  eventID: z.string().min(1).optional().meta({ description: "one event; with eventIDs, the only selector (rule 1)" }),
  eventIDs: csvList().optional(),
  sportID: csvList().optional(),
  leagueID: csvList().optional(),
  type: z.enum(objects.EVENT_TYPES, { error: "expected match, tournament or prop" }).optional(),
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
  limit: pageLimit(pageLimits.PAGE_LIMITS.events),
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

/**
 * An events page is heavy when it carries more than one event with all their odds: at full scale
 * `?leagueID=AFL&limit=10` is 8.9 MB and `?limit=100` 40 MB. One event, or odds narrowed to some
 * oddIDs or players, is not. Each page in flight holds its gRPC answer and its envelope in the edge,
 * and its rendering in the events service: 64 pages of 50 events at once took both processes up by
 * 200-250 MB for seconds.
 */
export function isHeavyEventsPage(
  request: Pick<events.ListEventsRequest, "eventIds" | "oddIds" | "playerIds" | "limit">,
): boolean {
  if (request.oddIds.length > 0 || request.playerIds.length > 0) return false;
  return pageOfManyEvents(request.eventIds.length, request.limit);
}

/** A page of more than one event: `named` events asked for by id (0: none), at most `limit` of them. */
export function pageOfManyEvents(named: number, limit: number): boolean {
  return (named > 0 ? Math.min(named, limit) : limit) > 1;
}

/**
 * Heavy events pages loaded at once by one edge, and how many more may wait (see HeavyPages). The
 * queue is deep: this is the product's main read, and 64 clients asking at once should wait their
 * turn, not be refused; the wait is bounded all the same. Answers served from the answer cache never wait.
 */
const HEAVY_EVENTS_PAGES = { slots: 4, queue: 124 } as const;

/** One edge's bound on heavy events pages (v2's `/events/`, v1's `/odds`), taking at most `maxMs` each. */
export function heavyEventPages(maxMs: number): HeavyPages {
  return new HeavyPages({ ...HEAVY_EVENTS_PAGES, maxMs }, "pages of more than one event with all their odds");
}

/**
 * How the edge loads events pages, v2's and v1's: a heavy one within the edge's bound on them, on the events
 * connections heavy pages have to themselves; any other on the connection the small reads and the feed's pushed
 * version share, where nothing then queues behind the megabytes of a heavy page on the wire.
 */
export class EventsPageLoads {
  private readonly shared: EventsGateway;
  private readonly heavy: EventsGateway;

  constructor(
    clients: Pick<DownstreamClients, "events" | "eventsHeavy">,
    private readonly heavyPages: HeavyPages,
  ) {
    this.shared = new EventsGateway(clients.events);
    this.heavy = new EventsGateway(clients.eventsHeavy);
  }

  load(heavy: boolean, read: (gateway: EventsGateway) => Promise<common.JsonPage>): Promise<common.JsonPage> {
    return heavy ? this.heavyPages.run(() => read(this.heavy)) : read(this.shared);
  }
}

export function eventsRoutes(clients: DownstreamClients, bounds: ReadBounds): RouteDefinition[] {
  const pages = new EventsPageLoads(clients, bounds.eventPages);
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
      item: objects.event,
      errors: [400, 500],
      load: async (params, { caller }, _admitted, heldTag, heldItemTags = []) => {
        const request = { ...toListEventsRequest(params), caller, ifTag: heldTag, heldItemTags: [...heldItemTags] };
        return fromJsonPage(await pages.load(isHeavyEventsPage(request), (gateway) => gateway.listEvents(request)));
      },
    }) as RouteDefinition,
  ];
}
