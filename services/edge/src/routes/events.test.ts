import type { DownstreamClients } from "../gateways/clients";
import { rejection } from "../../test/rejection";
import { parseQuery } from "../http/query";
import { buildOpenApiDocument } from "../openapi/document";
import { eventsQuery, eventsRoutes, isHeavyEventsPage, toListEventsRequest } from "./events";
import { readBounds } from ".";

describe("GET /v2/events/ parameters", () => {
  test("limit defaults to 10, allows 1 to 100, and rejects 0, -1, abc and 101 naming limit", () => {
    expect(parseQuery(eventsQuery, {}).limit).toBe(10);
    expect(parseQuery(eventsQuery, { limit: "100" }).limit).toBe(100);
    for (const limit of ["0", "-1", "abc", "101", "2.5"]) {
      const err = rejection(() => parseQuery(eventsQuery, { limit }));
      expect([err.status, err.error]).toEqual([400, "Invalid params"]);
      expect(err.detail).toMatch(/^limit: /);
    }
  });

  test.each([
    "oddsAvailable",
    "oddsPresent",
    "includeOpposingOdds",
    "includeOpposingOddIDs",
    "includeAltLines",
    "expandResults",
    "includeOpenCloseOdds",
    "finalized",
    "live",
    "started",
    "ended",
    "cancelled",
    "includeFinished",
  ])("%s accepts only true or false", (name) => {
    expect(rejection(() => parseQuery(eventsQuery, { [name]: "yes" })).detail).toMatch(new RegExp(`^${name}: `));
    expect(parseQuery(eventsQuery, { [name]: "false" })).toMatchObject({ [name]: false });
  });

  test("startsAfter and startsBefore must be ISO 8601 and travel as Unix milliseconds", () => {
    expect(rejection(() => parseQuery(eventsQuery, { startsAfter: "tomorrow" })).detail).toMatch(/^startsAfter: /);
    expect(rejection(() => parseQuery(eventsQuery, { startsBefore: "2026-13-45" })).detail).toMatch(/^startsBefore: /);
    const params = parseQuery(eventsQuery, { startsAfter: "2026-11-21", startsBefore: "2026-11-22T06:30:00Z" });
    expect(toListEventsRequest(params)).toMatchObject({
      startsAfterMs: Date.UTC(2026, 10, 21),
      startsBeforeMs: Date.UTC(2026, 10, 22, 6, 30),
    });
  });

  test("an unknown type is rejected naming type", () => {
    expect(rejection(() => parseQuery(eventsQuery, { type: "game" })).detail).toMatch(/^type: /);
    expect(toListEventsRequest(parseQuery(eventsQuery, { type: "prop" })).type).toBe("prop");
  });

  test("eventID and eventIDs merge, and the oddIDs and includeOpposingOddIDs aliases fold into their names", () => {
    const params = parseQuery(eventsQuery, {
      eventID: "AFL_1",
      eventIDs: "AFL_2, AFL_1",
      oddID: "points-home-game-ml-home",
      oddIDs: "disposals-PLAYER_ID-game-ou-over",
      includeOpposingOddIDs: "true",
      bookmakerID: "sportsbet,tab",
      expandResults: "true",
      includeOpenCloseOdds: "true",
    });
    expect(toListEventsRequest(params)).toMatchObject({
      eventIds: ["AFL_1", "AFL_2"],
      oddIds: ["points-home-game-ml-home", "disposals-PLAYER_ID-game-ou-over"],
      includeOpposingOdds: true,
      bookmakerIds: ["sportsbet", "tab"],
      limit: 10,
      cursor: "",
    });
  });

  test("omitted boolean filters stay unset so the service keeps every event", () => {
    const request = toListEventsRequest(parseQuery(eventsQuery, {}));
    expect([request.live, request.started, request.ended, request.finalized, request.cancelled]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([request.oddsAvailable, request.oddsPresent]).toEqual([undefined, undefined]);
  });

  test("a page of more than one event with all their odds is heavy; one event, or odds narrowed to oddIDs or players, is not", () => {
    const heavy = (query: Record<string, string>) =>
      isHeavyEventsPage(toListEventsRequest(parseQuery(eventsQuery, query)));
    expect(heavy({})).toBe(true); // the default limit, 10
    expect(heavy({ leagueID: "AFL", limit: "2" })).toBe(true);
    expect(heavy({ eventIDs: "e1,e2" })).toBe(true);
    expect(heavy({ eventID: "e1", eventIDs: "e2", bookmakerID: "sportsbet" })).toBe(true);
    expect(heavy({ limit: "1" })).toBe(false);
    expect(heavy({ eventID: "e1" })).toBe(false);
    expect(heavy({ eventIDs: "e1,e2", limit: "1" })).toBe(false);
    expect(heavy({ limit: "100", oddID: "points-home-game-ml-home" })).toBe(false);
    expect(heavy({ limit: "100", playerID: "P1" })).toBe(false);
  });

  test("the OpenAPI document declares every parameter, the Event item and the 400 and 500 errors", () => {
    const routes = eventsRoutes({ events: {} } as unknown as DownstreamClients, readBounds(5_000));
    const document = buildOpenApiDocument(routes, "test") as any;
    const operation = document.paths["/events/"].get;
    const names = operation.parameters.map((parameter: { name: string }) => parameter.name);
    expect(names).toEqual(expect.arrayContaining(["eventIDs", "oddIDs", "includeOpposingOddIDs", "limit", "cursor"]));
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "500"]));
    expect(document.components.schemas.Event.properties.odds).toBeDefined();
  });
});
