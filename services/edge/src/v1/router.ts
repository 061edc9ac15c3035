import Router from "@koa/router";
import type { CursorSeal, Logger } from "@odds/platform";
import type { Middleware } from "koa";
import compose from "koa-compose";
import { bearerApiKey, type KeyAccess } from "../access/api-key";
import { requirePlanFeature } from "../access/plan-features";
import type { HistoryGateway } from "../gateways/history";
import { mountHistoryFileDownload } from "./routes/history-files";
import type { UsageRecorder } from "../access/usage-recorder";
import { Answer, renewedAnswer } from "../cache/answer";
import { frameShared } from "../cache/rendering";
import { ResponseCache } from "../cache/response-cache";
import { authenticate, rateLimit, type KeyedState } from "../http/admission";
import { sendAnswer } from "../http/cached-answer";
import { notFound, routeScope } from "../http/errors";
import { isPaged, PagedRequest } from "../http/paging";
import { RouteQueries } from "../http/query";
import { mountReference } from "../openapi/docs";
import type { RateLimiter } from "../ratelimit/rate-limiter";
import { linksOf, v1Envelope } from "./envelope";
import { buildV1OpenApiDocument } from "./openapi";
import type { V1Route } from "./route";
import { mountStreamPage } from "./stream/page";

export interface V1RouterOptions {
  logger: Logger;
  access: KeyAccess;
  limiter: RateLimiter;
  recorder: UsageRecorder;
  /** Seals `links.next` cursors as v2's are: bound to route, plan scope and query. */
  cursors: CursorSeal;
  version: string;
  /** Serves GET /v1/history/files/{league}/{day} (Parquet); absent: not served. */
  historyFiles?: HistoryGateway;
  /** Answers cached per (route, path, query, plan scope, feed version), as v2's are. */
  answers?: { cache: ResponseCache; version: () => string };
}

/** Path prefix of the v1 preview; the error boundary answers requests below it with problem+json. */
export const V1_PREFIX = "/v1";

export function isV1Path(path: string): boolean {
  return path === V1_PREFIX || path.startsWith(`${V1_PREFIX}/`);
}

/**
 * The v1 preview's router: its OpenAPI document and docs page, then every route behind Bearer
 * auth and the same plans and rate limits as v2, usage counted in objects.
 */
export function v1Router(routes: V1Route[], options: V1RouterOptions): Router {
  const router = new Router({ prefix: V1_PREFIX });
  mountReference(
    router,
    V1_PREFIX,
    "Sports Odds Read API v1 (preview) reference",
    buildV1OpenApiDocument(routes, options.version),
  );
  mountStreamPage(router);

  for (const route of routes) {
    const paged = isPaged(route.query);
    const queries = new RouteQueries(route.query);
    // One router layer per route, as in v2: one span per route when tracing is on.
    const stack: Middleware[] = [
      routeScope(route.errors),
      authenticate(options.access, bearerApiKey),
      ...(route.requires ? [requirePlanFeature(route.requires, `GET ${V1_PREFIX}${route.path}`)] : []),
      rateLimit(options.limiter, options.recorder, options.access),
      async (ctx) => {
        // The path names the route's own parameters (an event's ID), so it is part of what is parsed.
        const query = queries.of(ctx.querystring, () => ({ ...ctx.query, ...ctx.params }), ctx.path);
        const raw = query.params as { cursor?: string };
        const grant = (ctx.state as KeyedState).grant;
        const paging = paged ? new PagedRequest(options.cursors, `${V1_PREFIX}${route.path}`, grant.caller, raw) : null;
        const params = paging ? paging.opened() : raw;
        // A renewal names the page it holds; a source that says it is unchanged sends nothing again.
        const load = async (held?: Answer) => {
          const page = await route.load(params, grant, held?.sourceTag);
          return renewedAnswer(page, held, route.path, () => {
            if (route.data === "object" && page.items.length === 0) throw notFound();
            const next = paging ? paging.sealedCursor(page.nextCursor) : page.nextCursor;
            const [head, tail] = v1Envelope(page, linksOf(ctx.path, query.sorted, next), route.data);
            return new Answer(frameShared(page, head, tail, held), page.objects, page.tag);
          });
        };
        const answers = options.answers;
        const answer = answers
          ? await answers.cache.answer(
              ResponseCache.keyOf(`${V1_PREFIX}${route.path}`, `${ctx.path}?${query.sorted}`, grant.caller),
              answers.version,
              load,
            )
          : await load();
        await sendAnswer(ctx, answer);
      },
    ];
    router.get(route.path, compose(stack));
  }
  if (options.historyFiles) {
    mountHistoryFileDownload(
      router,
      [
        routeScope([400, 404, 500, 503]),
        authenticate(options.access, bearerApiKey),
        requirePlanFeature("history", `GET ${V1_PREFIX}/history/files/{league}/{day}`),
        rateLimit(options.limiter, options.recorder, options.access),
      ],
      options.historyFiles,
    );
  }
  return router;
}
