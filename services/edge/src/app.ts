import Router from "@koa/router";
import type { HistoryGateway } from "./gateways/history";
import { accessLogger, redactApiKey, type CursorSeal, type Logger } from "@odds/platform";
import Koa, { type Context, type Middleware } from "koa";
import compose from "koa-compose";
import compress from "koa-compress";
import type { KeyAccess } from "./access/api-key";
import type { UsageRecorder } from "./access/usage-recorder";
import { Answer, renewedAnswer } from "./cache/answer";
import { frameShared } from "./cache/rendering";
import { ResponseCache } from "./cache/response-cache";
import type { UsageGateway } from "./gateways/usage";
import { authenticate, rateLimit, type KeyedState } from "./http/admission";
import { sendAnswer } from "./http/cached-answer";
import { identityWhenNothingAcceptable } from "./http/content-coding";
import { pageEnvelope, writeObject, writePage } from "./http/envelope";
import { isPaged, PagedRequest } from "./http/paging";
import { errorBoundary, gone, methodNotAllowed, notFound, routeScope } from "./http/errors";
import { canonicalQuery, RouteQueries } from "./http/query";
import type { RouteAnswer, RouteDefinition } from "./http/route";
import { mountReference } from "./openapi/docs";
import { buildOpenApiDocument } from "./openapi/document";
import type { RateLimiter } from "./ratelimit/rate-limiter";
import { systemRoutes } from "./routes/system";
import { writeProblem } from "./v1/problem";
import type { V1Route } from "./v1/route";
import { isV1Path, v1Router } from "./v1/router";
import type { HealthSources } from "./system/health";
import { edgeMetrics } from "./system/metrics";

export interface EdgeAppOptions {
  logger: Logger;
  health: HealthSources;
  /** After v2's retirement every v2 route answers 410 Gone. */
  retired: boolean;
  access: KeyAccess;
  limiter: RateLimiter;
  recorder: UsageRecorder;
  usage: UsageGateway;
  /** The data routes from `dataRoutes(clients, bounds)`; the system routes (/health, /account/usage) are added here. */
  routes: RouteDefinition[];
  /** Signs the cursors of every paged route and binds them to route, plan scope and query. */
  cursors: CursorSeal;
  /** Answers cached per route, query, plan scope and data version; absent: every request is loaded. */
  answers?: { cache: ResponseCache; version: () => string };
  /** The v1 preview's routes (`v1Routes(clients, bounds)`), served under /v1 beside v2; absent: no v1. */
  v1Routes?: V1Route[];
  /** GET /v1/history/files/{league}/{day} (Parquet downloads, streamed from the history service). */
  historyFiles?: HistoryGateway;
}

/** Registered without its trailing slash, a route answers both forms (the router is not strict). */
function anySlash(path: string): string {
  return path.replace(/\/+$/, "");
}

/** Request log line (key redacted) and the request rate, latency and error metrics. */
function observe(logger: Logger): Middleware {
  // The line's fields are fixed here and the URL is redacted by hand, so it skips the redaction pass.
  const access = accessLogger(logger);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern (never the raw path), so label cardinality stays bounded.
      const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      const route = matched === undefined ? "unmatched" : String(matched);
      const labels = { route, status: String(ctx.status) };
      edgeMetrics.requests.inc(labels);
      edgeMetrics.duration.observe(labels, seconds);
      if (ctx.status >= 500) edgeMetrics.errors.inc(labels);
      access.info(
        {
          method: ctx.method,
          path: redactApiKey(ctx.url),
          status: ctx.status,
          durationMs: Math.round(seconds * 1000),
          keyID: (ctx.state as Partial<KeyedState>).grant?.keyID,
        },
        "request",
      );
    }
  };
}

/**
 * Mounts one route: its error scope, then (keyed routes) the key check and the rate limit,
 * then its parameters (strict: 400 naming the parameter; lenient: ignored), then its answer.
 */
function mount(router: Router, route: RouteDefinition, options: EdgeAppOptions, shared: boolean): void {
  if (!route.lenientParameters && !route.errors.includes(400)) {
    throw new Error(`route ${route.path} rejects malformed parameters but its contract lists no 400`);
  }
  const keyed =
    route.keyed === false
      ? []
      : [authenticate(options.access), rateLimit(options.limiter, options.recorder, options.access)];
  const paged = isPaged(route.query);
  const queries = new RouteQueries(route.query, route.lenientParameters);
  // One router layer per route: with tracing on, the Koa instrumentation makes one span per layer,
  // so the route is one span (named by its pattern) around the key, rate-limit and load spans.
  const respond: Middleware = async (ctx) => {
    const query = queries.of(ctx.querystring, () => ctx.query);
    const raw = query.params;
    if (route.keyed === false) {
      writeAnswer(ctx, await route.load(raw));
      return;
    }
    const { grant, admitted } = ctx.state as KeyedState;
    const paging = paged
      ? new PagedRequest(options.cursors, `/v2${route.path}`, grant.caller, raw as { cursor?: string })
      : undefined;
    const params = paging ? paging.opened() : raw;
    const load = async (heldTag?: string, heldItemTags?: readonly string[]) => {
      const loaded = await route.load(params, grant, admitted, heldTag, heldItemTags);
      return paging ? paging.sealed(loaded) : loaded;
    };
    const answers = shared ? options.answers : undefined;
    if (!answers) {
      writeAnswer(ctx, await load());
      return;
    }
    const key = ResponseCache.keyOf(
      route.path,
      params === raw ? query.canonical : canonicalQuery(params),
      grant.caller,
    );
    const answer = await answers.cache.answer(key, answers.version, async (held) => {
      // A reload names the page it renews and the items it holds: a source that says the page is unchanged sends
      // nothing again, one that tags items leaves out those it holds.
      const loaded = await load(held?.sourceTag, held?.itemTags);
      if ("object" in loaded) throw new Error(`route ${route.path} answers one object; only pages are cached`);
      return renewedAnswer(
        loaded,
        held,
        route.path,
        () => new Answer(frameShared(loaded, ...pageEnvelope(loaded), held), loaded.items.length, loaded.tag),
      );
    });
    await sendAnswer(ctx, answer);
  };
  router.get(anySlash(route.path), compose([routeScope(route.errors), ...keyed, respond]));
}

function writeAnswer(ctx: Context, answer: RouteAnswer): void {
  if ("object" in answer) writeObject(ctx, answer.object);
  else writePage(ctx, answer);
}

/** Builds the Koa app: observation, ONE error boundary, retirement, compression, the v2 routes, then 404/405. */
export function createEdgeApp(options: EdgeAppOptions): Koa {
  const app = new Koa();
  app.use(observe(options.logger));
  app.use(errorBoundary(options.logger, (ctx) => (isV1Path(ctx.path) ? writeProblem : undefined)));
  if (options.retired) {
    app.use(async (ctx, next) => {
      if (ctx.path === "/v2" || ctx.path.startsWith("/v2/")) throw gone();
      await next();
    });
  }
  app.use(identityWhenNothingAcceptable());
  app.use(compress());

  const router = new Router({ prefix: "/v2" });
  const system = systemRoutes(options);
  mountReference(
    router,
    "/v2",
    "Sports Odds Read API v2 reference",
    buildOpenApiDocument([...system, ...options.routes], options.health.version),
  );
  for (const route of system) mount(router, route, options, false);
  // Data routes answer from (parameters, plan scope, feed version) alone, so their answers are shared.
  for (const route of options.routes) mount(router, route, options, true);

  app.use(router.routes());
  const v1 = options.v1Routes ? v1Router(options.v1Routes, { ...options, version: options.health.version }) : undefined;
  if (v1) app.use(v1.routes());
  app.use(async (ctx) => {
    if (ctx.method === "GET" || ctx.method === "HEAD") throw notFound();
    const known = [router, v1].some((candidate) => candidate && candidate.match(ctx.path, "GET").path.length > 0);
    if (known) throw methodNotAllowed("GET, HEAD");
    throw notFound();
  });
  return app;
}
