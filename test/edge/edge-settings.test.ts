import { freePort } from "@odds/local";
import { e2eStack } from "../support/e2e";
import { EDGE_START_MS, startEdgeBeside } from "../support/edge-process";
import { createKey, setKeyActive } from "./keys";

const startEdge = startEdgeBeside;
/** Each test starts its own edge, then makes a few requests. */
const TEST_MS = EDGE_START_MS + 60_000;

async function get(baseUrl: string, path: string, apiKey?: string) {
  const res = await fetch(`${baseUrl}${path}`, { headers: apiKey ? { "x-api-key": apiKey } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("edge settings, each on its own edge process", () => {
  it(
    "answers every v2 route 410 Gone with V2_RETIRED=true",
    async () => {
      const edge = await startEdge({ V2_RETIRED: "true" });
      try {
        for (const path of ["/health", "/account/usage", "/events/", "/stream/events", "/openapi.json"]) {
          const res = await get(edge.baseUrl, path, e2eStack().apiKeys.base);
          expect([path, res.status, res.body.error]).toEqual([path, 410, "Gone"]);
        }
      } finally {
        await edge.proc.stop();
      }
    },
    TEST_MS,
  );

  it(
    "keeps serving without Redis by default and reports it in /health",
    async () => {
      const deadRedis = `redis://127.0.0.1:${await freePort()}`;
      const edge = await startEdge({ REDIS_URL: deadRedis });
      try {
        expect((await get(edge.baseUrl, "/account/usage", e2eStack().apiKeys.lite)).status).toBe(200);
        const health = await get(edge.baseUrl, "/health");
        expect(health.body.data).toMatchObject({ status: "degraded", rateLimiter: "unavailable" });
      } finally {
        await edge.proc.stop();
      }
    },
    TEST_MS,
  );

  it(
    "sees a key deactivated through the usage service within two requests, its grant cached for 10 minutes",
    async () => {
      // The usage service writes the key's new revision to Redis; this edge's admissions read it.
      const edge = await startEdge({ PLAN_CACHE_TTL_MS: "600000" });
      try {
        const { apiKey, keyID } = await createKey("base");
        const statuses = async (count: number) => {
          const seen = [];
          for (let i = 0; i < count; i += 1) seen.push((await get(edge.baseUrl, "/account/usage", apiKey)).status);
          return seen;
        };
        expect(await statuses(2)).toEqual([200, 200]);
        await setKeyActive(keyID, false);
        // The first is admitted under the cached grant and brings the news; the second is looked up again.
        expect(await statuses(2)).toEqual([200, 403]);
      } finally {
        await edge.proc.stop();
      }
    },
    TEST_MS,
  );

  it(
    "answers 503 without Redis when RATE_LIMIT_FAIL_MODE=closed",
    async () => {
      const deadRedis = `redis://127.0.0.1:${await freePort()}`;
      const edge = await startEdge({ REDIS_URL: deadRedis, RATE_LIMIT_FAIL_MODE: "closed" });
      try {
        const res = await get(edge.baseUrl, "/account/usage", e2eStack().apiKeys.lite);
        expect(res.status).toBe(503);
        expect(res.body.success).toBe(false);
      } finally {
        await edge.proc.stop();
      }
    },
    TEST_MS,
  );
});
