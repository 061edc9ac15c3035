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

/** Starts Scalar on the page with the edge's own OpenAPI document. */
export function docsInitScript(specUrl: string): string {
  const configuration = {
    url: specUrl,
    // Every tag open, so each route's path is on the page.
    defaultOpenAllTags: true,
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: "never",
    telemetry: false,
  };
  return `Scalar.createApiReference("#api-reference", ${JSON.stringify(configuration)});\n`;
}

/** The API reference page: Scalar rendering the edge's own OpenAPI document. */
export function docsPage(scriptUrls: string[]): string {
  const scripts = scriptUrls.map((url) => `    <script src="${url}"></script>`).join("\n");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sports Odds Read API v2 reference</title>
  </head>
  <body>
    <div id="api-reference"></div>
${scripts}
  </body>
</html>
`;
}
