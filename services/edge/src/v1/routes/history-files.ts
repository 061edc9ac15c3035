import { Readable } from "node:stream";
import type Router from "@koa/router";
import { history, v1 } from "@odds/proto";
import type { Middleware } from "koa";
import compose from "koa-compose";
import { z } from "zod";
import type { KeyedState } from "../../http/admission";
import { csvList } from "../../http/params";
import { parseQuery } from "../../http/query";
import type { HistoryGateway } from "../../gateways/history";
import { defineV1Route, fromV1JsonPage, type V1Route } from "../route";

export const v1HistoryFilesQuery = z.strictObject({
  league_id: csvList().optional().meta({ description: "only these leagues" }),
});

export const v1HistoryFileParams = z.strictObject({
  league: z.string().min(1),
  day: z.iso.date({ error: "expected a UTC day, YYYY-MM-DD" }),
});

export const PARQUET_MEDIA_TYPE = "application/vnd.apache.parquet";

/** GET /v1/history/files: the league-days with a file, as a v1 list. */
export function v1HistoryFilesRoutes(gateway: HistoryGateway): V1Route[] {
  return [
    defineV1Route({
      path: "/history/files",
      summary: "League-days available as Parquet history files (Pro plan)",
      description:
        "Complete UTC days (ended at least 15 minutes ago) with recorded ticks, from each league's history_start, " +
        "newest first; each with the url of its file, GET /v1/history/files/{league}/{day}: every tick of that " +
        "league and day as /v1/odds/history serves them, one row per tick (Parquet, ZSTD; README for the schema), " +
        "with ETag and Content-Length.",
      tag: "Odds history",
      query: v1HistoryFilesQuery,
      item: v1.v1HistoryFile,
      data: "list",
      errors: [400, 500, 503],
      requires: "history",
      load: async (params, { caller }) =>
        fromV1JsonPage(
          await gateway.listHistoryFiles(
            history.ListHistoryFilesRequest.create({ caller, leagueIds: params.league_id ?? [] }),
          ),
        ),
    }),
  ];
}

/**
 * GET /v1/history/files/{league}/{day}: the Parquet file streamed from the history service as it
 * arrives, with its ETag and Content-Length (If-None-Match: 304). Counted as one request of one object.
 */
export function mountHistoryFileDownload(router: Router, guards: Middleware[], gateway: HistoryGateway): void {
  const download: Middleware = async (ctx) => {
    const params = parseQuery(v1HistoryFileParams, ctx.params);
    const state = ctx.state as KeyedState;
    const chunks = gateway
      .getHistoryFile(
        history.GetHistoryFileRequest.create({ caller: state.grant.caller, leagueId: params.league, day: params.day }),
      )
      [Symbol.asyncIterator]();
    // The first chunk carries the size and ETag; a failure before it is the request's failure.
    const first = await chunks.next();
    const head = first.done ? undefined : first.value;
    if (!head) throw new Error("history file stream ended before its header");
    state.entities = 1;
    ctx.set("ETag", head.etag);
    ctx.set("Cache-Control", "private, max-age=86400");
    if (ctx.get("If-None-Match") === head.etag) {
      await chunks.return?.();
      ctx.status = 304;
      return;
    }
    ctx.type = PARQUET_MEDIA_TYPE;
    ctx.set("Content-Disposition", `attachment; filename="${params.league}-${params.day}.parquet"`);
    ctx.length = Number(head.size);
    ctx.body = Readable.from(
      (async function* () {
        if (head.data.length > 0) yield Buffer.from(head.data);
        for (;;) {
          const next = await chunks.next();
          if (next.done) return;
          yield Buffer.from(next.value.data);
        }
      })(),
    );
  };
  // One router layer, as for every route: one span per request when tracing is on.
  router.get("/history/files/:league/:day", compose([...guards, download]));
}
