import { objects } from "@odds/proto";
import type { z } from "zod";
import { getV2 } from "../support/e2e";

/**
 * Every item every route serves, validated against the contract object of the contracts package
 * (the same definition the renderers are typed by and the OpenAPI document is generated from).
 * Parsing drops unknown keys, so equality with the parsed copy also catches fields the contract lacks.
 */
const SCHEMAS: Record<string, z.ZodType> = {
  "/health": objects.health,
  "/account/usage": objects.accountUsage,
  "/events/": objects.event,
  "/odds/history/": objects.oddsHistoryTick,
  "/sports/": objects.sport,
  "/leagues/": objects.league,
  "/teams/": objects.team,
  "/players/": objects.player,
  "/stats/": objects.stat,
  "/markets/": objects.market,
};

function expectContract(path: string, items: unknown[]): void {
  const schema = SCHEMAS[path]!;
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (!parsed.success) throw new Error(`${path}: ${parsed.error.message}\n${JSON.stringify(item).slice(0, 500)}`);
    expect(parsed.data).toEqual(item);
  }
}

describe("served items match the contract objects", () => {
  it("covers every route of the OpenAPI document that answers 200", async () => {
    const openApi = (await getV2("/openapi.json", { apiKey: null })).body as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    const answering = Object.entries(openApi.paths)
      .filter(([, item]) => item.get.responses["200"] !== undefined)
      .map(([path]) => path);
    expect(answering.sort()).toEqual(Object.keys(SCHEMAS).sort());
  });

  it("/health", async () => {
    const res = await getV2("/health", { apiKey: null });
    expect(res.status).toBe(200);
    expectContract("/health", [res.body.data]);
  });

  it.each(["/account/usage", "/sports/", "/leagues/", "/teams/", "/players/", "/stats/"])("%s", async (path) => {
    const res = await getV2(path, { tier: "internal" });
    expect(res.status).toBe(200);
    expectContract(path, res.body.data);
  });

  it("/markets/ (supported and unsupported)", async () => {
    for (const isSupported of ["true", "false"]) {
      const res = await getV2(`/markets/?isSupported=${isSupported}&limit=500`, { tier: "internal" });
      expect(res.status).toBe(200);
      if (res.body.data.length > 0) expectContract("/markets/", res.body.data);
    }
  });

  it("/events/ with alt lines and finished events", async () => {
    const res = await getV2("/events/?includeFinished=true&includeAltLines=true&limit=100", { tier: "internal" });
    expect(res.status).toBe(200);
    expectContract("/events/", res.body.data);
  });

  it("/odds/history/ of events with ticks", async () => {
    const events = await getV2("/events/?oddsPresent=true&limit=10", { tier: "internal" });
    let served = 0;
    for (const event of events.body.data as Array<{ eventID: string }>) {
      const res = await getV2(`/odds/history/?eventID=${event.eventID}&limit=500`, { tier: "internal" });
      expect(res.status).toBe(200);
      if (res.body.data.length === 0) continue;
      expectContract("/odds/history/", res.body.data);
      served += res.body.data.length;
      if (served >= 1000) break;
    }
    expect(served).toBeGreaterThan(0);
  });
});
