import { readFileSync } from "node:fs";

let bundle: Buffer | undefined;

/** Scalar's standalone browser bundle, served from node_modules (no CDN). Read once, on first use. */
export function scalarBundle(): Buffer {
  bundle ??= readFileSync(require.resolve("@scalar/api-reference/browser/standalone.js"));
  return bundle;
}

/** The API reference page: Scalar rendering the edge's own OpenAPI document. */
export function docsPage(specUrl: string, scriptUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sports Odds Read API v2 reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="${specUrl}"></script>
    <script src="${scriptUrl}"></script>
  </body>
</html>
`;
}
