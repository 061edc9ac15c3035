import type Router from "@koa/router";
import { readFileSync } from "node:fs";

let bundle: Buffer | undefined;

/** Scalar's standalone browser bundle, served from node_modules (no CDN). Read once, on first use. */
export function scalarBundle(): Buffer {
  bundle ??= readFileSync(require.resolve("@scalar/api-reference/browser/standalone.js"));
  return bundle;
}

/** Everything the page loads comes from this origin: no CDN, no remote fonts, no telemetry. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
].join("; ");

/**
 * Where Scalar mounts. Not "api-reference": the bundle also mounts a second, unconfigured app on
 * an element of that id (its legacy HTML API), which loads the vendor's fonts and AI registry.
 */
const MOUNT_ID = "odds-api-reference";

/** System fonts instead of the vendor's font host. */
const SYSTEM_FONTS_CSS =
  ":root { --scalar-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; " +
  "--scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }";

/** Starts Scalar on the page with the edge's own OpenAPI document; nothing it loads leaves this origin. */
export function docsInitScript(specUrl: string): string {
  const configuration = {
    url: specUrl,
    // Every tag open, so each route's path is on the page.
    defaultOpenAllTags: true,
    withDefaultFonts: false,
    customCss: SYSTEM_FONTS_CSS,
    // No "Ask AI" agent (it queries the vendor's registry through its proxy), no vendor proxy at all.
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: "never",
    telemetry: false,
  };
  return `Scalar.createApiReference("#${MOUNT_ID}", ${JSON.stringify(configuration)});\n`;
}

/** The API reference page: Scalar rendering the edge's own OpenAPI document. */
export function docsPage(title: string, scriptUrls: string[]): string {
  const scripts = scriptUrls.map((url) => `    <script src="${url}"></script>`).join("\n");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <!-- No favicon request (it would 404 outside /v2). -->
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="${MOUNT_ID}"></div>
${scripts}
  </body>
</html>
`;
}

/**
 * A contract's OpenAPI document and its reference page (with the page's two scripts) on its
 * router, whose prefix (`/v2`, `/v1`) the page's URLs carry. The same for every contract.
 */
export function mountReference(router: Router, prefix: string, title: string, document: object): void {
  const body = JSON.stringify(document);
  router.get("/openapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.body = body;
  });
  router.get("/docs", (ctx) => {
    ctx.type = "text/html";
    ctx.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    ctx.body = docsPage(title, [`${prefix}/docs/scalar.js`, `${prefix}/docs/init.js`]);
  });
  router.get("/docs/scalar.js", (ctx) => {
    ctx.type = "application/javascript";
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.body = scalarBundle();
  });
  router.get("/docs/init.js", (ctx) => {
    ctx.type = "application/javascript";
    ctx.body = docsInitScript(`${prefix}/openapi.json`);
  });
}
