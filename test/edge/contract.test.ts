import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { MongoClient } from "mongodb";
import { e2eStack, getV2 } from "../support/e2e";
import { createKey } from "./keys";

interface Operation {
  parameters: Array<{ name: string; schema: Record<string, unknown> }>;
  responses: Record<string, unknown>;
  security?: unknown[];
}
type OpenApi = { paths: Record<string, { get: Operation }> };

let openApi: OpenApi;
let keyedPaths: string[];
let inactiveKey: string;

beforeAll(async () => {
  openApi = (await getV2("/openapi.json", { apiKey: null })).body as OpenApi;
  keyedPaths = Object.entries(openApi.paths)
    .filter(([, item]) => item.get.security === undefined)
    .map(([path]) => path);
  inactiveKey = (await createKey("base", { active: false })).apiKey;
});

/** A value the route's schema must reject, from the OpenAPI document (integer or enum parameter). */
function invalidQuery(path: string): string | undefined {
  for (const parameter of openApi.paths[path]?.get.parameters ?? []) {
    if (parameter.schema.type === "integer") return `${parameter.name}=not-a-number`;
    if (Array.isArray(parameter.schema.enum)) return `${parameter.name}=__invalid__`;
  }
  return undefined;
}

describe("the contract's routes on the running stack", () => {
  it("serves an OpenAPI 3.1 document of every route that validates", async () => {
    await expect(SwaggerParser.validate(structuredClone(openApi) as never)).resolves.toBeDefined();
    expect(Object.keys(openApi.paths)).toEqual(expect.arrayContaining(["/health", "/account/usage", "/stream/events"]));
  });

  it("answers 401 Invalid API key on every keyed route without a key or with an unknown key", async () => {
    for (const path of keyedPaths) {
      const missing = await getV2(path, { apiKey: null });
      const unknown = await getV2(path, { apiKey: "odds_base_unknown_key_000000000000" });
      expect([path, missing.status, missing.body]).toEqual([path, 401, { success: false, error: "Invalid API key" }]);
      expect([path, unknown.status]).toEqual([path, 401]);
    }
  });

  it("answers 403 Inactive API key on every keyed route for a deactivated key", async () => {
    for (const path of keyedPaths) {
      const res = await getV2(path, { apiKey: inactiveKey });
      expect([path, res.status, res.body]).toEqual([path, 403, { success: false, error: "Inactive API key" }]);
    }
  });

  it("answers 400 Invalid params with a message naming the parameter on every route that lists 400", async () => {
    const listing400 = Object.entries(openApi.paths)
      .filter(([, item]) => "400" in item.get.responses)
      .map(([path]) => path);
    expect(listing400.length).toBeGreaterThan(0);
    for (const path of listing400) {
      const query = invalidQuery(path);
      if (!query) continue; // a route whose every parameter is a free string cannot be sent a malformed value
      const res = await getV2(`${path}?${query}`, { tier: "internal" });
      expect([path, res.status, res.body.error]).toEqual([path, 400, "Invalid params"]);
      expect(res.body.message).toContain(query.split("=")[0]);
    }
  });

  it("never answers 400 on /sports/, whatever the parameters", async () => {
    if (!openApi.paths["/sports/"]) return;
    const res = await getV2("/sports/?limit=abc&sportID=,,,&cursor=%%%", { tier: "base" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it("answers /stream/events 501 Not Implemented after the key check", async () => {
    const res = await getV2("/stream/events?feed=events:live", { tier: "base" });
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ success: false, error: "Not Implemented" });
  });

  it("answers 404 Not found for an unknown route and 405 with Allow for another method", async () => {
    const unknown = await getV2("/nothing-here/", { tier: "base" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: "Not found" });
    const res = await fetch(`${e2eStack().baseUrl}/account/usage`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });

  it("reports health without a key", async () => {
    const res = await getV2("/health", { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ version: "2.0.0", rateLimiter: "ok" });
    expect(["healthy", "stale", "empty"]).toContain(res.body.data.pipeline);
    expect(Number.isInteger(res.body.data.uptimeSeconds)).toBe(true);
  });

  it("compresses responses for clients that accept gzip", async () => {
    const res = await fetch(`${e2eStack().baseUrl}/openapi.json`, { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
  });
});

describe("keys of each tier", () => {
  it.each(["lite", "base", "internal"] as const)(
    "reports the %s key's tier and limits at /account/usage",
    async (tier) => {
      const res = await getV2("/account/usage", { tier });
      expect(res.status).toBe(200);
      const [account] = res.body.data;
      expect(account).toMatchObject({ tier, isActive: true, email: `dev-${tier}@localhost`, customerID: null });
      expect(account.keyID).toMatch(/^[0-9a-f]{16}$/);
      const minute = account.rateLimits["per-minute"];
      if (tier === "internal") {
        // Unlimited, yet counted: this call itself is in the minute window.
        expect(minute).toMatchObject({ "max-requests": null, "max-entities": null });
        expect(minute["current-requests"]).toBeGreaterThanOrEqual(1);
      } else {
        expect(minute["max-requests"]).toBe(tier === "lite" ? 60 : 600);
        expect(minute["current-requests"]).toBeGreaterThanOrEqual(1);
      }
    },
  );

  it("counts the /account/usage call itself", async () => {
    const { apiKey } = await createKey("base");
    const first = await getV2("/account/usage", { apiKey });
    const second = await getV2("/account/usage", { apiKey });
    expect(first.body.data[0].rateLimits["per-day"]["current-requests"]).toBe(1);
    expect(second.body.data[0].rateLimits["per-day"]["current-requests"]).toBe(2);
    expect(second.body.data[0].rateLimits["per-day"]["current-entities"]).toBe(1);
  });

  it("shows a lite key only its plan's leagues and no fair odds on /events/", async () => {
    if (!openApi.paths["/events/"]) return;
    const res = await getV2("/events/?limit=100&includeFinished=true", { tier: "lite" });
    expect(res.status).toBe(200);
    for (const event of res.body.data as Array<{ leagueID: string; odds: Record<string, { fairOdds: unknown }> }>) {
      expect(["AFL", "NRL", "EPL"]).toContain(event.leagueID);
      for (const odds of Object.values(event.odds ?? {})) expect(odds.fairOdds).toBeNull();
    }
  });

  it("answers 404 Not found at /account/usage when the key's record is gone", async () => {
    const { apiKey, keyID } = await createKey("base");
    expect((await getV2("/account/usage", { apiKey })).status).toBe(200);
    const mongo = new MongoClient(e2eStack().uris.usage ?? "");
    try {
      await mongo.connect();
      await mongo
        .db()
        .collection("api_keys")
        .deleteOne({ _id: keyID as never });
    } finally {
      await mongo.close();
    }
    // The edge still holds the key's plan for a few seconds; the usage record itself is gone.
    const res = await getV2("/account/usage", { apiKey });
    expect([404, 401]).toContain(res.status);
    if (res.status === 404) expect(res.body).toEqual({ success: false, error: "Not found" });
  });
});

describe("rate limits on the running stack", () => {
  it("refuses a burst beyond the lite plan with 429 and a whole-second Retry-After", async () => {
    const { apiKey } = await createKey("lite");
    const burst = await Promise.all(Array.from({ length: 40 }, () => getV2("/account/usage", { apiKey })));
    const refused = burst.filter((res) => res.status === 429);
    const served = burst.filter((res) => res.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length + refused.length).toBe(40);
    for (const res of refused) {
      expect(res.body).toMatchObject({ success: false, error: "Rate limit exceeded" });
      expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    expect(served[0]?.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  });
});

describe("key redaction", () => {
  it("never writes a key to any service log, even when sent as the apiKey query parameter", async () => {
    const { apiKey } = await createKey("base");
    for (const path of keyedPaths) await getV2(`${path}?apiKey=${apiKey}`, { apiKey: null });
    await getV2(`/no-such-route?apiKey=${apiKey}`, { apiKey: null });
    await getV2("/account/usage", { apiKey });
    const logsDir = join(e2eStack().dataDir, "logs");
    const logs = readdirSync(logsDir).map((file) => readFileSync(join(logsDir, file), "utf8"));
    expect(logs.join("\n")).toContain("apiKey=[REDACTED]");
    for (const text of logs) expect(text).not.toContain(apiKey);
    for (const key of Object.values(e2eStack().apiKeys)) for (const text of logs) expect(text).not.toContain(key);
  });
});
