import SwaggerParser from "@apidevtools/swagger-parser";
import { pageLimits } from "@odds/proto";
import { z } from "zod";
import { defineRoute } from "../http/route";
import { booleanFlag, pageLimit } from "../http/params";
import { systemRoutes, type SystemRouteSources } from "../routes/system";
import { buildOpenApiDocument } from "./document";

const eventsLike = defineRoute({
  path: "/events/",
  summary: "Events",
  tag: "Events",
  query: z.object({
    limit: pageLimit(pageLimits.PAGE_LIMITS.events),
    leagueID: z.string().optional().meta({ description: "one or comma-separated" }),
    live: booleanFlag().optional(),
  }),
  item: z
    .object({ eventID: z.string(), odds: z.record(z.string(), z.object({ bookOdds: z.string() })) })
    .meta({ id: "Event" }),
  errors: [400, 500],
  load: async () => ({ items: [], nextCursor: null }),
});

// One sub-schema used by two routes' items: zod emits it once, shared.
const team = z.object({ teamID: z.string(), names: z.object({ long: z.string() }) });
const teamsLike = defineRoute({
  path: "/teams/",
  summary: "Teams",
  tag: "Catalogue",
  query: z.object({}),
  item: z.object({ home: team, away: team }),
  errors: [],
  load: async () => ({ items: [], nextCursor: null }),
});
const playersLike = defineRoute({ ...teamsLike, path: "/players/", item: z.object({ team }) });

describe("OpenAPI document", () => {
  const document = buildOpenApiDocument(
    [...systemRoutes({} as SystemRouteSources), eventsLike, teamsLike, playersLike],
    "2.0.0",
  );

  it("validates against the OpenAPI 3.1 schema", async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it("documents every route with its query parameters from the same zod schema", () => {
    const paths = document.paths as Record<
      string,
      { get: { parameters: Array<Record<string, unknown>>; responses: Record<string, unknown> } }
    >;
    expect(Object.keys(paths).sort()).toEqual([
      "/account/usage",
      "/events/",
      "/health",
      "/players/",
      "/stream/events",
      "/teams/",
    ]);
    const limit = paths["/events/"]?.get.parameters.find((parameter) => parameter.name === "limit");
    expect(limit).toMatchObject({ in: "query", required: false, schema: { maximum: 100, default: 10 } });
    const live = paths["/events/"]?.get.parameters.find((parameter) => parameter.name === "live");
    expect(live?.schema).toEqual({ type: "boolean" });
    expect(Object.keys(paths["/events/"]?.get.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "429", "500"]),
    );
    expect(Object.keys(paths["/stream/events"]?.get.responses ?? {})).not.toContain("200");
    expect(paths["/health"]?.get).toMatchObject({ security: [] });
  });

  it("hoists sub-schemas shared between items into components with resolvable refs", () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain("__shared");
    expect(text).not.toContain('"#/$defs/');
  });

  it("publishes the item shapes as components", () => {
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["Event", "AccountUsage", "Health", "ErrorEnvelope"]));
  });
});
