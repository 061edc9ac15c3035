import { history, pageLimits, v1 } from "@odds/proto";
import { z } from "zod";
import type { DownstreamClients } from "../../gateways/clients";
import { HistoryGateway } from "../../gateways/history";
import { csvList, cursor, dateTime, pageLimit } from "../../http/params";
import { v1IdList, v1IdParam } from "../params";
import { defineV1Route, fromV1JsonPage, type V1Route } from "../route";

export const v1OddsHistoryQuery = z.strictObject({
  event_id: v1IdParam("event").meta({ description: "required: the one event (ev_...)" }),
  market_id: v1IdList("market").optional(),
  outcome_id: v1IdList("outcome").optional(),
  bookmaker: csvList().optional().meta({ description: "ticks of these bookmakers only" }),
  from: dateTime()
    .optional()
    .meta({ description: "window start; default 24 hours before to; not before the league's history_start" }),
  to: dateTime()
    .optional()
    .meta({ description: "window end, exclusive, capped at now; default from + 24 hours, or now" }),
  limit: pageLimit(pageLimits.V1_PAGE_LIMITS.history),
  cursor: cursor().optional(),
});

export function v1HistoryRoutes(clients: DownstreamClients): V1Route[] {
  const gateway = new HistoryGateway(clients.history);
  return [
    defineV1Route({
      path: "/odds/history",
      summary: "Tick-by-tick history of one event's prices (Pro plan)",
      description:
        "Oldest first. One event per request and a window of at most 24 hours (longer: 400 naming to), from the " +
        "league's history_start in /v1/leagues (2026-10-08, or 2025-12-22 for leagues with converted earlier " +
        "recordings; an earlier from: 400). Prices are decimal; a close has null decimal_odds. limit defaults to " +
        "1000, at most 5000. Keys whose plan is not Pro get 403.",
      tag: "Odds history",
      query: v1OddsHistoryQuery,
      item: v1.v1OddsTick,
      data: "list",
      errors: [400, 404, 500, 503],
      requires: "history",
      load: async (params, { caller }, heldTag) =>
        fromV1JsonPage(
          await gateway.listTicks(
            history.ListTicksRequest.create({
              caller,
              ifTag: heldTag,
              view: "v1",
              eventId: params.event_id,
              marketIds: params.market_id ?? [],
              outcomeIds: params.outcome_id ?? [],
              bookmakerIds: params.bookmaker ?? [],
              fromMs: params.from,
              toMs: params.to,
              limit: params.limit,
              cursor: params.cursor ?? "",
            }),
          ),
        ),
    }),
  ];
}
