import SwaggerParser from "@apidevtools/swagger-parser";
import { decodeJsonPage, encodeJsonPage, frameItems } from "@odds/platform";
import { catalogue, common, history, v1 } from "@odds/proto";
import { rejection } from "../../test/rejection";
import { expectRenewals, GRANT, startPageService, type PageService } from "../../test/renewals";
import { bearerApiKey } from "../access/api-key";
import type { DownstreamClients } from "../gateways/clients";
import { parseQuery } from "../http/query";
import { linksOf, v1Envelope, type V1Links } from "./envelope";
import { buildV1OpenApiDocument } from "./openapi";
import { problemType } from "./problem";
import type { V1Page } from "./route";
import { v1Routes } from "./routes";
import {
  isHeavyV1Page,
  v1EventOddsQuery,
  v1EventsQuery,
  v1LookupQuery,
  v1OddsQuery,
  toListEventsV1Request,
} from "./routes/events";
import { v1CatalogueRoutes, v1PlayersQuery, v1SportsQuery } from "./routes/catalogue";
import { v1HistoryRoutes, v1OddsHistoryQuery } from "./routes/history";
import { planIncludes, planRequired } from "../access/plan-features";
import { plan } from "../../test/fixtures";
import { readBounds } from "../routes";

const eventID = v1.v1Id("event", "AFL_2026-11-21_A_vs_B");

/** A page in v1's envelope, framed as the router frames a page it does not share with an older rendering. */
function renderV1Body(page: V1Page, links: V1Links, data: "list" | "object"): Buffer {
  return frameItems(page.items, ...v1Envelope(page, links, data));
}

describe("v1 keys: Authorization: Bearer only", () => {
  const none = "";

  test("reads the key from Authorization: Bearer (scheme case-insensitive)", () => {
    expect(bearerApiKey({ authorization: "Bearer odds_base_abc" }, none)).toBe("odds_base_abc");
    expect(bearerApiKey({ authorization: "bearer  odds_base_abc " }, none)).toBe("odds_base_abc");
    expect(bearerApiKey({}, none)).toBeUndefined();
  });

  test("refuses a key sent the v2 way (x-api-key, apiKey), even beside a Bearer key, with 401", () => {
    for (const [headers, query] of [
      [{ "x-api-key": "odds_base_abc" }, none],
      [{}, "apiKey=odds_base_abc"],
      [{}, "leagueID=AFL&%61piKey=odds_base_abc"],
      [{ authorization: "Bearer odds_base_abc", "x-api-key": "odds_base_abc" }, none],
    ] as const) {
      const err = rejection(() => bearerApiKey(headers, query));
      expect([err.status, err.error]).toEqual([401, "Invalid API key"]);
      expect(err.detail).toMatch(/Authorization: Bearer/);
    }
  });

  test("refuses another scheme with 401", () => {
    expect(rejection(() => bearerApiKey({ authorization: "Basic b2RkczpvZGRz" }, none)).status).toBe(401);
  });
});

describe("v1 parameters", () => {
  test("event ids must be v1 ids; a v2 id is a 400 naming the parameter", () => {
    expect(parseQuery(v1EventsQuery, { event_id: `${eventID},${eventID}` }).event_id).toEqual([eventID, eventID]);
    const err = rejection(() => parseQuery(v1EventsQuery, { event_id: "AFL_2026-11-21_A_vs_B" }));
    expect([err.status, err.error]).toEqual([400, "Invalid params"]);
    expect(err.detail).toMatch(/^event_id/);
    expect(rejection(() => parseQuery(v1EventOddsQuery, { event_id: "ev_short" })).detail).toMatch(/^event_id/);
  });

  test("an unknown parameter is a 400 naming it, not silently ignored", () => {
    expect(rejection(() => parseQuery(v1SportsQuery, { leagueID: "AFL" })).detail).toBe(
      "leagueID: not a parameter of this route",
    );
    expect(rejection(() => parseQuery(v1EventsQuery, { eventID: "x", limit: "500", sport: "AFL" })).detail).toBe(
      "limit: at most 100; eventID: not a parameter of this route; sport: not a parameter of this route",
    );
  });

  test("limit, status, dates and group_by are validated naming the parameter", () => {
    expect(parseQuery(v1EventsQuery, {}).limit).toBe(10);
    expect(rejection(() => parseQuery(v1EventsQuery, { limit: "101" })).detail).toMatch(/^limit: at most 100/);
    expect(rejection(() => parseQuery(v1OddsQuery, { limit: "51" })).detail).toMatch(/^limit: at most 50/);
    expect(rejection(() => parseQuery(v1EventsQuery, { status: "over" })).detail).toMatch(/^status: /);
    expect(rejection(() => parseQuery(v1EventsQuery, { starts_after: "soon" })).detail).toMatch(/^starts_after: /);
    expect(rejection(() => parseQuery(v1OddsQuery, { group_by: "event" })).detail).toMatch(/^group_by: /);
    expect(parseQuery(v1OddsQuery, {}).group_by).toBe("market");
    expect(rejection(() => parseQuery(v1PlayersQuery, { player_id: "NICK_1_AFL" })).detail).toMatch(/^player_id/);
  });

  test("odds history takes one v1 event id, v1 market and outcome ids, dates and a limit up to 5000", () => {
    const parsed = parseQuery(v1OddsHistoryQuery, { event_id: eventID, from: "2026-11-20T00:00:00Z" });
    expect([parsed.event_id, parsed.from, parsed.limit]).toEqual([eventID, Date.UTC(2026, 10, 20), 1000]);
    expect(rejection(() => parseQuery(v1OddsHistoryQuery, {})).detail).toMatch(/^event_id/);
    expect(rejection(() => parseQuery(v1OddsHistoryQuery, { event_id: `${eventID},${eventID}` })).detail).toMatch(
      /^event_id/,
    );
    expect(rejection(() => parseQuery(v1OddsHistoryQuery, { event_id: eventID, market_id: "x" })).detail).toMatch(
      /^market_id/,
    );
    expect(rejection(() => parseQuery(v1OddsHistoryQuery, { event_id: eventID, limit: "5001" })).detail).toMatch(
      /^limit: at most 5000/,
    );
  });

  test("history and streams are the pro plan's: other plans are refused with a 403 naming the plan", () => {
    expect(planIncludes(plan("pro"), "history")).toBe(true);
    expect(planIncludes(plan("pro"), "stream")).toBe(true);
    for (const tier of ["lite", "base"]) {
      expect(planIncludes(plan(tier), "history")).toBe(false);
      expect(planIncludes(plan(tier), "stream")).toBe(false);
    }
    const refused = planRequired("GET /v1/odds/history", plan("base"));
    expect([refused.status, refused.error]).toEqual([403, "Plan required"]);
    expect(refused.detail).toBe("GET /v1/odds/history is part of the pro plan; this key's plan is base");
  });

  test("lookup takes exactly one of id and external_ids, at most 100 bookmakerID:id", () => {
    expect(parseQuery(v1LookupQuery, { id: eventID }).id).toBe(eventID);
    expect(parseQuery(v1LookupQuery, { external_ids: "tab:1234,sportsbet:col-v-car-9" }).external_ids).toEqual([
      "tab:1234",
      "sportsbet:col-v-car-9",
    ]);
    expect(rejection(() => parseQuery(v1LookupQuery, {})).detail).toMatch(/^id: send exactly one/);
    expect(rejection(() => parseQuery(v1LookupQuery, { id: eventID, external_ids: "tab:1" })).status).toBe(400);
    expect(rejection(() => parseQuery(v1LookupQuery, { external_ids: "1234" })).detail).toMatch(/^external_ids/);
    const many = Array.from({ length: 101 }, (_, i) => `tab:${i}`).join(",");
    expect(rejection(() => parseQuery(v1LookupQuery, { external_ids: many })).detail).toMatch(/at most 100/);
  });

  test("filters travel to the events service under their v1 meaning", () => {
    const params = parseQuery(v1OddsQuery, {
      league_id: "AFL,NRL",
      bookmaker: "tab",
      market_id: v1.v1Id("market", "points-all-game-ml"),
      group_by: "bookmaker",
      status: "live",
    });
    expect(toListEventsV1Request("odds_by_bookmaker", params, undefined)).toMatchObject({
      view: "odds_by_bookmaker",
      leagueIds: ["AFL", "NRL"],
      bookmakerIds: ["tab"],
      marketIds: [v1.v1Id("market", "points-all-game-ml")],
      status: "live",
      limit: 10,
    });
  });

  test("a page of the odds of more than one event, not narrowed to markets, is heavy (as v2's are); events and results are not", () => {
    const heavy = (view: "event" | "odds" | "odds_by_bookmaker" | "results", query: Record<string, string>) =>
      isHeavyV1Page(toListEventsV1Request(view, parseQuery(v1OddsQuery, query), undefined));
    const [one, two] = ["e1", "e2"].map((id) => v1.v1Id("event", id));
    expect(heavy("odds", {})).toBe(true); // the default limit, 10
    expect(heavy("odds_by_bookmaker", { league_id: "AFL", limit: "2" })).toBe(true);
    expect(heavy("odds", { event_id: `${one},${two}`, bookmaker: "tab" })).toBe(true);
    expect(heavy("odds", { limit: "1" })).toBe(false);
    expect(heavy("odds", { event_id: one! })).toBe(false);
    expect(heavy("odds", { market_id: v1.v1Id("market", "points-all-game-ml") })).toBe(false);
    expect(heavy("event", {})).toBe(false);
    expect(heavy("results", {})).toBe(false);
  });
});

describe("v1 envelope", () => {
  test("links.next keeps every filter and replaces the cursor; null on the last page", () => {
    const query = "league_id=AFL&cursor=old&limit=5";
    const links = linksOf("/v1/events", query, "next-token");
    expect(links.self).toBe("/v1/events?league_id=AFL&cursor=old&limit=5");
    expect(new URLSearchParams(links.next!.split("?")[1])).toEqual(
      new URLSearchParams("league_id=AFL&cursor=next-token&limit=5"),
    );
    expect(linksOf("/v1/sports", "", null)).toEqual({ self: "/v1/sports", next: null });
  });

  test("{data, meta, links} with the objects the response cost", () => {
    const page = { items: [Buffer.from('{"a":1}'), Buffer.from('{"a":2}')], nextCursor: null, objects: 7 };
    const body = JSON.parse(renderV1Body(page, { self: "/v1/x", next: null }, "list").toString());
    expect(body).toEqual({
      data: [{ a: 1 }, { a: 2 }],
      meta: { count: 2, cost: { objects: 7 } },
      links: { self: "/v1/x", next: null },
    });
    const one = JSON.parse(renderV1Body({ ...page, items: [page.items[0]!] }, body.links, "object").toString());
    expect(one.data).toEqual({ a: 1 });
    expect(v1.v1Meta.parse(one.meta)).toEqual(one.meta);
  });

  test("a large page received is framed where it arrived, as a list and as one object", () => {
    // Both pages pass 64 KiB, the size from which a received page is framed in place: 30 objects of 3 KB, and one
    // of 70 KB. (A smaller page is copied, and its copy may come from the same 8 KB pool as its message.)
    const objects = Array.from({ length: 30 }, (_, index) => ({ id: `ev-${index}`, pad: "x".repeat(3_000) }));
    const large = { id: "ev-large", pad: "x".repeat(70_000) };
    const links = { self: `/v1/events?${"league_id=AFL&".repeat(20)}`, next: `/v1/events?cursor=${"c".repeat(300)}` };
    for (const [data, expected] of [
      ["list", objects],
      ["object", large],
    ] as const) {
      const shown = data === "list" ? objects : [large];
      const bytes = encodeJsonPage(
        common.JsonPage.create({ items: shown.map((object) => Buffer.from(JSON.stringify(object))) }),
      );
      const items = decodeJsonPage(bytes).items;
      const body = renderV1Body({ items, nextCursor: null, objects: 30 }, links, data);
      expect(JSON.parse(body.toString())).toEqual({
        data: expected,
        meta: { count: shown.length, cost: { objects: 30 } },
        links,
      });
      // The answer is a view of the received message, not a copy of it.
      expect(body.buffer === bytes.buffer).toBe(true);
    }
  });

  test("problem types are stable URIs named after the title", () => {
    expect(problemType("Invalid params")).toBe("urn:odds:problem:invalid-params");
    expect(problemType("Rate limit exceeded")).toBe("urn:odds:problem:rate-limit-exceeded");
  });
});

describe("/v1/openapi.json", () => {
  const routes = v1Routes({ events: {}, catalogue: {} } as unknown as DownstreamClients, readBounds(5_000));
  const document = buildV1OpenApiDocument(routes, "test") as any;

  test("is a valid OpenAPI 3.1 document with Bearer security and problem+json failures", async () => {
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
    expect(document.servers).toEqual([{ url: "/v1" }]);
    expect(document.components.securitySchemes).toEqual({
      bearer: { type: "http", scheme: "bearer", description: "the API key" },
    });
    const failure = document.paths["/events/{event_id}"].get.responses["404"];
    expect(Object.keys(failure.content)).toEqual(["application/problem+json"]);
  });

  test("documents every v1 route, path parameters included", () => {
    expect(Object.keys(document.paths).sort()).toEqual([
      "/bookmakers",
      "/events",
      "/events/lookup",
      "/events/{event_id}",
      "/events/{event_id}/odds",
      "/history/files",
      "/history/files/{league}/{day}",
      "/leagues",
      "/markets",
      "/odds",
      "/odds/history",
      "/players",
      "/results",
      "/sports",
      "/stream/odds",
      "/teams",
    ]);
    const parameters = document.paths["/events/{event_id}/odds"].get.parameters;
    expect(parameters.find((p: { name: string }) => p.name === "event_id")).toMatchObject({
      in: "path",
      required: true,
    });
    expect(document.components.schemas.EventOdds.properties.markets).toBeDefined();
    expect(document.components.schemas.OddsTick.properties.decimal_odds).toBeDefined();
    expect(Object.keys(document.paths["/odds/history"].get.responses)).toContain("403");
  });
});

describe("v1 renewals, against the catalogue and history services over real gRPC", () => {
  let catalogueService: PageService;
  let historyService: PageService;

  beforeAll(async () => {
    catalogueService = await startPageService(
      { name: "odds.catalogue.v1.CatalogueService", definition: catalogue.CatalogueServiceService },
      ["listSports", "listLeagues", "listBookmakers", "listMarkets", "listTeams", "listPlayers"],
    );
    historyService = await startPageService(
      { name: "odds.history.v1.HistoryService", definition: history.HistoryServiceService },
      ["listTicks"],
    );
  });

  afterAll(async () => {
    await catalogueService.stop();
    await historyService.stop();
  });

  test("every catalogue route's load names the page it renews, and the service's unchanged comes back", async () => {
    for (const route of v1CatalogueRoutes(catalogueService.clients)) {
      const params = parseQuery(route.query, {});
      await expectRenewals((heldTag) => route.load(params, GRANT, heldTag), catalogueService);
    }
    expect(new Set(catalogueService.received.map((call) => call.method)).size).toBe(6);
  });

  test("the odds history route's load names the page it renews, and the service's unchanged comes back", async () => {
    const [route] = v1HistoryRoutes(historyService.clients);
    const params = parseQuery(route!.query, { event_id: eventID, from: "2026-11-20T00:00:00Z" });
    await expectRenewals((heldTag) => route!.load(params, GRANT, heldTag), historyService);
  });
});
