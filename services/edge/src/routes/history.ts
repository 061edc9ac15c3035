import { history, objects, pageLimits } from "@odds/proto";
import { z } from "zod";
import type { DownstreamClients } from "../gateways/clients";
import { HistoryGateway } from "../gateways/history";
import { csvList, cursor, dateTime, pageLimit } from "../http/params";
import { defineRoute, fromJsonPage, type RouteDefinition } from "../http/route";

/** Every query parameter of GET /v2/odds/history/, aliases included. */
export const historyQuery = z.object({
  eventID: z.string({ error: "is required" }).min(1, { error: "is required" }).meta({ description: "required" }),
  oddID: csvList()
    .optional()
    .meta({ description: "one or comma-separated; PLAYER_ID in the statEntityID slot matches every player" }),
  oddIDs: csvList().optional().meta({ description: "alias of oddID" }),
  bookmakerID: csvList().optional(),
  from: dateTime().optional().meta({ description: "window start; default 21 days before the event's kickoff date" }),
  to: dateTime().optional().meta({ description: "window end, exclusive, capped at now; default 2 days after kickoff" }),
  limit: pageLimit(pageLimits.PAGE_LIMITS.history),
  cursor: cursor().optional(),
});

export type HistoryQuery = z.output<typeof historyQuery>;

export function toListTicksRequest(params: HistoryQuery): Omit<history.ListTicksRequest, "caller"> {
  return history.ListTicksRequest.create({
    eventId: params.eventID,
    oddIds: [...new Set([...(params.oddID ?? []), ...(params.oddIDs ?? [])])],
    bookmakerIds: params.bookmakerID ?? [],
    fromMs: params.from,
    toMs: params.to,
    limit: params.limit,
    cursor: params.cursor ?? "",
  });
}

export function historyRoutes(clients: DownstreamClients): RouteDefinition[] {
  const gateway = new HistoryGateway(clients.history);
  return [
    defineRoute({
      path: "/odds/history/",
      summary: "Tick-by-tick history of one event's prices, lines and bet limits (extension)",
      description:
        "Oldest first (changedAt, then a stable tick id). One bookmaker is one series: where it reached the log " +
        "through two sources, the higher-ranked source is kept for the whole window. from/to span at most 400 " +
        "days; each request reads at most 50,000 ticks per tier before paging. `notice` is set when the archive " +
        "tier did not answer (the series is then incomplete at its old end).",
      tag: "Odds history",
      query: historyQuery,
      item: objects.oddsHistoryTick,
      errors: [400, 404, 500, 503],
      load: async (params, { caller }, _admitted, heldTag) =>
        fromJsonPage(await gateway.listTicks({ ...toListTicksRequest(params), caller, ifTag: heldTag })),
    }) as RouteDefinition,
  ];
}
