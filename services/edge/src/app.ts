import Router from "@koa/router";
import { redactApiKey, type Logger } from "@odds/platform";
import Koa, { type Middleware } from "koa";
import compress from "koa-compress";
import type { KeyAccess } from "./access/api-key";
import type { UsageRecorder } from "./access/usage-recorder";
import type { UsageGateway } from "./gateways/usage";
import { writeObject, writePage } from "./http/envelope";
import { errorBoundary, gone, methodNotAllowed, notFound, notImplemented, type RouteErrorScope } from "./http/errors";
import { authenticate, rateLimit, type KeyedState } from "./http/admission";
import { lenientQuery, parseQuery } from "./http/query";
import type { RouteDefinition } from "./http/route";
import { DOCS_CONTENT_SECURITY_POLICY, docsInitScript, docsPage, scalarBundle } from "./openapi/docs";
import { buildOpenApiDocument } from "./openapi/document";
import type { RateLimiter } from "./ratelimit/rate-limiter";
import { loadAccountUsage } from "./routes/account";
import { edgeRoutes } from "./routes/system";
import { healthReport, type HealthSources } from "./system/health";
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
  /** The keyed data routes from `dataRoutes(clients)`. */
  routes: RouteDefinition[];
}

/** Registered without its trailing slash, a route answers both forms (the router is not strict). */
function anySlash(path: string): string {
  return path.replace(/\/+$/, "");
}

/** Records the statuses a route lists, so the error boundary answers nothing else. */
function routeScope(errors: number[]): Middleware {
  return async (ctx, next) => {
    (ctx.state as { routeErrors?: RouteErrorScope }).routeErrors = { errors };
    await next();
  };
}

/** Request log line (key redacted) and the request rate, latency and error metrics. */
function observe(logger: Logger): Middleware {
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
      logger.info(
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

/** Builds the Koa app: observation, ONE error boundary, retirement, compression, the v2 routes, then 404/405. */
export function createEdgeApp(options: EdgeAppOptions): Koa {
  const app = new Koa();
  app.use(observe(options.logger));
  app.use(errorBoundary(options.logger));
  if (options.retired) {
    app.use(async (ctx, next) => {
      if (ctx.path === "/v2" || ctx.path.startsWith("/v2/")) throw gone();
      await next();
    });
  }
  app.use(compress());

  const router = new Router({ prefix: "/v2" });
  const keyed = (errors: number[]): Middleware[] => [
    routeScope(errors),
    authenticate(options.access),
    rateLimit(options.limiter, options.recorder, options.logger),
  ];
  const openApi = buildOpenApiDocument([...edgeRoutes(), ...options.routes], options.health.version);
  const openApiBody = JSON.stringify(openApi);

  router.get(anySlash("/health"), async (ctx) => writeObject(ctx, await healthReport(options.health)));
  router.get(anySlash("/openapi.json"), (ctx) => {
    ctx.type = "application/json";
    ctx.body = openApiBody;
  });
  router.get(anySlash("/docs"), (ctx) => {
    ctx.type = "text/html";
    ctx.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    ctx.body = docsPage(["/v2/docs/scalar.js", "/v2/docs/init.js"]);
  });
  router.get("/docs/scalar.js", (ctx) => {
    ctx.type = "application/javascript";
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.body = scalarBundle();
  });
  router.get("/docs/init.js", (ctx) => {
    ctx.type = "application/javascript";
    ctx.body = docsInitScript("/v2/openapi.json");
  });
  router.get(anySlash("/stream/events"), ...keyed([501]), () => {
    throw notImplemented();
  });
  router.get(anySlash("/account/usage"), ...keyed([404]), async (ctx) => {
    const { grant } = ctx.state as KeyedState;
    writePage(ctx, await loadAccountUsage(grant, options.usage, options.limiter));
  });
  for (const route of options.routes) {
    router.get(anySlash(route.path), ...keyed(route.errors), async (ctx) => {
      // A route whose contract lists no 400 (/sports/) ignores malformed parameters instead.
      const params = route.errors.includes(400)
        ? parseQuery(route.query, ctx.query)
        : lenientQuery(route.query, ctx.query);
      writePage(ctx, await route.load(params, (ctx.state as KeyedState).grant.caller));
    });
  }

  app.use(router.routes());
  app.use(async (ctx) => {
    if (ctx.method === "GET" || ctx.method === "HEAD") throw notFound();
    const known = router.match(ctx.path, "GET").path.length > 0;
    if (known) throw methodNotAllowed("GET, HEAD");
    throw notFound();
  });
  return app;
}
