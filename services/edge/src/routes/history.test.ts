import SwaggerParser from "@apidevtools/swagger-parser";
import { history } from "@odds/proto";
import type { DownstreamClients } from "../gateways/clients";
import { rejection } from "../../test/rejection";
import { expectRenewals, GRANT, startPageService, type PageService } from "../../test/renewals";
import { parseQuery } from "../http/query";
import { buildOpenApiDocument } from "../openapi/document";
import { historyQuery, historyRoutes, toListTicksRequest } from "./history";

describe("GET /v2/odds/history/ parameters", () => {
  test("a missing eventID is 400 Invalid params naming eventID", () => {
    const err = rejection(() => parseQuery(historyQuery, {}));
    expect(err.status).toBe(400);
    expect(err.error).toBe("Invalid params");
    expect(err.detail).toMatch(/^eventID: /);
  });

  test("limit defaults to 1000 and allows up to 5000", () => {
    expect(parseQuery(historyQuery, { eventID: "E" }).limit).toBe(1000);
    expect(parseQuery(historyQuery, { eventID: "E", limit: "5000" }).limit).toBe(5000);
    expect(rejection(() => parseQuery(historyQuery, { eventID: "E", limit: "5001" })).detail).toMatch(/^limit: /);
  });

  test("from and to must be ISO 8601 date-times and travel as Unix milliseconds", () => {
    expect(rejection(() => parseQuery(historyQuery, { eventID: "E", from: "yesterday" })).detail).toMatch(/^from: /);
    const params = parseQuery(historyQuery, { eventID: "E", from: "2026-10-01", to: "2026-10-02T12:00:00Z" });
    expect(toListTicksRequest(params)).toMatchObject({
      fromMs: Date.UTC(2026, 9, 1),
      toMs: Date.UTC(2026, 9, 2, 12),
    });
  });

  test("oddID and its alias oddIDs merge; bookmakerID is a comma-separated list", () => {
    const params = parseQuery(historyQuery, {
      eventID: "E",
      oddID: "points-home-game-ml-home",
      oddIDs: "points-away-game-ml-away,points-home-game-ml-home",
      bookmakerID: "sportsbet, tab",
    });
    expect(toListTicksRequest(params)).toMatchObject({
      eventId: "E",
      oddIds: ["points-home-game-ml-home", "points-away-game-ml-away"],
      bookmakerIds: ["sportsbet", "tab"],
      fromMs: undefined,
      toMs: undefined,
      cursor: "",
    });
  });
});

describe("history route", () => {
  const routes = historyRoutes({ history: {} } as DownstreamClients);

  test("declares /odds/history/ with 400, 404, 500 and 503", () => {
    expect(routes.map((route) => [route.path, route.errors])).toEqual([["/odds/history/", [400, 404, 500, 503]]]);
  });

  test("documents into a valid OpenAPI description with the OddsHistoryTick schema", async () => {
    const document = buildOpenApiDocument(routes, "2.0.0");
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(Object.keys((document.components as { schemas: Record<string, unknown> }).schemas)).toContain(
      "OddsHistoryTick",
    );
  });
});

describe("history route renewals, against a history service over real gRPC", () => {
  let service: PageService;

  beforeAll(async () => {
    service = await startPageService(
      { name: "odds.history.v1.HistoryService", definition: history.HistoryServiceService },
      ["listTicks"],
    );
  });

  afterAll(() => service.stop());

  test("a load names the page it renews, and the service's unchanged comes back as unchanged", async () => {
    const [route] = historyRoutes(service.clients);
    const params = parseQuery(historyQuery, { eventID: "E", limit: "5" });
    await expectRenewals((heldTag) => route!.load(params, GRANT, undefined, heldTag), service);
  });
});
