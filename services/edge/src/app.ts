import Router from "@koa/router";
import type { Logger } from "@odds/platform";
import Koa from "koa";
import compress from "koa-compress";
import { writeObject } from "./http/envelope";
import { errorBoundary, gone, methodNotAllowed, notFound, notImplemented } from "./http/errors";
import { healthReport, type HealthSources } from "./system/health";

export interface EdgeAppOptions {
  logger: Logger;
  health: HealthSources;
  retired: boolean;
}

/** Builds the Koa app: one error boundary at the top, then v2 routes, then the 404/405 fallback. */
export function createEdgeApp(options: EdgeAppOptions): Koa {
  const app = new Koa();
  app.proxy = true;
  app.use(errorBoundary(options.logger));
  app.use(compress());
  if (options.retired) {
    app.use(async (ctx, next) => {
      if (ctx.path === "/v2" || ctx.path.startsWith("/v2/")) throw gone();
      await next();
    });
  }

  const router = new Router({ prefix: "/v2" });
  router.get("/health", async (ctx) => writeObject(ctx, await healthReport(options.health)));
  router.get("/stream/events", () => {
    throw notImplemented();
  });
  app.use(router.routes());
  app.use(async (ctx) => {
    const allowed = router.allowedMethods();
    void allowed;
    if (ctx.method !== "GET" && ctx.method !== "HEAD") throw methodNotAllowed("GET, HEAD");
    throw notFound();
  });
  return app;
}
