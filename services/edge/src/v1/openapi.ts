import { v1 } from "@odds/proto";
import { buildContractDocument, type ContractStyle } from "../openapi/document";
import { PROBLEM_MEDIA_TYPE } from "./problem";
import { PARQUET_MEDIA_TYPE } from "./routes/history-files";
import type { V1Route } from "./route";

const V1_STYLE: ContractStyle = {
  serverUrl: "/v1",
  description:
    "Preview of v1, the successor of v2: keys as Authorization: Bearer, v1 ids (ev_, pl_, mk_, oc_), " +
    "{data, meta, links} with cursor paging through links.next, decimal prices, usage counted in objects " +
    "(1 per record plus 1 per bookmaker price), failures as application/problem+json.",
  security: [{ bearer: [] }],
  securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "the API key" } },
  successBody: (data) => ({
    type: "object",
    required: ["data", "meta", "links"],
    properties: { data, meta: { $ref: "#/components/schemas/Meta" }, links: { $ref: "#/components/schemas/Links" } },
  }),
  failure: { name: "Problem", mediaType: PROBLEM_MEDIA_TYPE },
  everyPath: [431],
  schemas: { Meta: v1.v1Meta, Links: v1.v1Links, Problem: v1.v1Problem },
};

/** /v1/openapi.json, generated from the v1 routes' schemas (the same that validate and that services render). */
export function buildV1OpenApiDocument(routes: V1Route[], version: string): Record<string, unknown> {
  const document = buildContractDocument(routes, `${version}-v1-preview`, V1_STYLE);
  Object.assign(document.paths as Record<string, unknown>, NON_JSON_PATHS);
  return document;
}

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
});

/** The two v1 routes that answer no JSON body: the Parquet download and the WebSocket stream. */
const NON_JSON_PATHS = {
  "/history/files/{league}/{day}": {
    get: {
      operationId: "getHistoryFile",
      summary: "One league-day of ticks as a Parquet file (Pro plan)",
      description:
        "Every tick of the league whose changed_at falls in the UTC day, one row per tick, with the OddsTick " +
        "fields as typed columns (ZSTD). Written once; streamed with ETag and Content-Length.",
      tags: ["Odds history"],
      parameters: [
        { name: "league", in: "path", required: true, schema: { type: "string" } },
        { name: "day", in: "path", required: true, schema: { type: "string", format: "date" } },
        { name: "If-None-Match", in: "header", required: false, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "The Parquet file",
          headers: { ETag: { schema: { type: "string" } }, "Content-Length": { schema: { type: "integer" } } },
          content: { [PARQUET_MEDIA_TYPE]: { schema: { type: "string", format: "binary" } } },
        },
        "304": { description: "Not modified (If-None-Match matched the ETag)" },
        "400": problem("Invalid params"),
        "401": problem("Invalid API key"),
        "403": problem("Inactive API key, or a plan without history"),
        "404": problem("No file for this league and day"),
        "429": problem("Rate limit exceeded"),
        "503": problem("Service unavailable"),
      },
    },
  },
  "/stream/odds": {
    get: {
      operationId: "streamOdds",
      summary: "WebSocket: live odds of up to 20 events of one league (Pro plan)",
      description:
        'Upgrade to WebSocket, then send {"type":"subscribe","event_ids":[...]} (with "authorization": ' +
        '"Bearer <KEY>" when the upgrade cannot carry the header). The server sends snapshots ' +
        "(type snapshot: data is EventOdds[]) at once and after each change, and heartbeats (type heartbeat) " +
        "after 15 s without a message. Close codes: 4000 lifetime (1 hour), 4400 invalid subscription or a " +
        "second client message, 4401 key, 4403 plan, 4404 event, 4408 no subscription, 4409 more than the " +
        "plan's open streams per key, 4410 key deactivated, 4429 rate limit (a window resetting within a " +
        "minute is waited for, and the newest odds sent then), 1013 unavailable.",
      tags: ["Odds"],
      responses: { "101": { description: "Switching to the WebSocket protocol" } },
    },
  },
};
