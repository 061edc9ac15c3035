import SwaggerParser from "@apidevtools/swagger-parser";
import { catalogue } from "@odds/proto";
import type { DownstreamClients } from "../gateways/clients";
import { rejection } from "../../test/rejection";
import { expectRenewals, GRANT, startPageService, type PageService } from "../../test/renewals";
import { parseQuery } from "../http/query";
import { buildOpenApiDocument } from "../openapi/document";
import { catalogueRoutes, marketsQuery, playersQuery, sportsQuery, statsQuery, teamsQuery } from "./catalogue";
import { readBounds } from ".";

describe("catalogue route parameters", () => {
  test.each(["0", "-1", "abc", "251", "1.5"])("teams and players reject limit=%s naming limit", (limit) => {
    for (const schema of [teamsQuery, playersQuery]) {
      const err = rejection(() => parseQuery(schema, { limit }));
      expect(err.status).toBe(400);
      expect(err.detail).toMatch(/^limit: /);
    }
  });

  test("limits default to 50 for teams and players and 100 for markets, up to 250 and 10000", () => {
    expect(parseQuery(teamsQuery, {}).limit).toBe(50);
    expect(parseQuery(playersQuery, { limit: "250" }).limit).toBe(250);
    expect(parseQuery(marketsQuery, {}).limit).toBe(100);
    expect(parseQuery(marketsQuery, { limit: "10000" }).limit).toBe(10_000);
    expect(rejection(() => parseQuery(marketsQuery, { limit: "10001" })).detail).toMatch(/^limit: /);
  });

  test("market booleans accept true and false, are undefined when omitted, and reject anything else by name", () => {
    const parsed = parseQuery(marketsQuery, { isMainMarket: "true", isProp: "false" });
    expect(parsed).toMatchObject({ isMainMarket: true, isProp: false });
    expect(parsed.isSubPeriod).toBeUndefined();
    expect(parsed.isSupported).toBeUndefined();
    for (const name of ["isMainMarket", "isProp", "isSubPeriod", "isSupported"]) {
      expect(rejection(() => parseQuery(marketsQuery, { [name]: "yes" })).detail).toMatch(new RegExp(`^${name}: `));
    }
  });

  test("propType and statLevel accept only their enums", () => {
    expect(parseQuery(marketsQuery, { propType: "player_prop" }).propType).toBe("player_prop");
    expect(rejection(() => parseQuery(marketsQuery, { propType: "prop" })).detail).toMatch(/^propType: /);
    expect(parseQuery(statsQuery, { statLevel: "team" }).statLevel).toBe("team");
    expect(rejection(() => parseQuery(statsQuery, { statLevel: "league" })).detail).toMatch(/^statLevel: /);
  });

  test("list filters split comma-separated values and repeated parameters", () => {
    expect(parseQuery(marketsQuery, { oddID: "a-b-c-d-e, f-g-h-i-j", leagueID: ["AFL", "NRL"] })).toMatchObject({
      oddID: ["a-b-c-d-e", "f-g-h-i-j"],
      leagueID: ["AFL", "NRL"],
    });
  });

  test("sports takes no parameters and never rejects a query", () => {
    expect(parseQuery(sportsQuery, { limit: "-1", sportID: "x", isProp: "maybe" })).toEqual({});
  });
});

describe("catalogue routes", () => {
  const routes = catalogueRoutes({ catalogue: {} } as DownstreamClients, readBounds(5_000));

  test("declare the six contract paths with the contract's error statuses", () => {
    expect(routes.map((route) => [route.path, route.errors])).toEqual([
      ["/sports/", []],
      ["/leagues/", [400]],
      ["/teams/", [400, 500]],
      ["/players/", [400, 500]],
      ["/stats/", [400]],
      ["/markets/", [400, 500]],
    ]);
  });

  test("document into a valid OpenAPI description with named item schemas", async () => {
    const document = buildOpenApiDocument(routes, "2.0.0");
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    const schemas = Object.keys((document.components as { schemas: Record<string, unknown> }).schemas);
    expect(schemas).toEqual(expect.arrayContaining(["Sport", "League", "Team", "Player", "Stat", "Market"]));
  });
});

describe("catalogue route renewals, against a catalogue service over real gRPC", () => {
  let service: PageService;

  beforeAll(async () => {
    service = await startPageService(
      { name: "odds.catalogue.v1.CatalogueService", definition: catalogue.CatalogueServiceService },
      ["listSports", "listLeagues", "listTeams", "listPlayers", "listStats", "listMarkets"],
    );
  });

  afterAll(() => service.stop());

  test("every route's load names the page it renews, and the service's unchanged comes back as unchanged", async () => {
    // A markets page above 1,000 markets goes through the heavy pages' bound: renewed the same way.
    const asked: Record<string, Record<string, string>> = { "/markets/": { limit: "5000" } };
    for (const route of catalogueRoutes(service.clients, readBounds(5_000))) {
      const params = parseQuery(route.query, asked[route.path] ?? {});
      await expectRenewals((heldTag) => route.load(params, GRANT, undefined, heldTag), service);
    }
    expect(new Set(service.received.map((call) => call.method))).toEqual(
      new Set(["listSports", "listLeagues", "listTeams", "listPlayers", "listStats", "listMarkets"]),
    );
  });
});
