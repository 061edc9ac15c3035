import { join } from "node:path";
import { DEV_CURSOR_SECRET, freePort, REPO_ROOT, spawnManaged, waitUntil, type ManagedProcess } from "@odds/local";
import { e2eStack } from "../support/e2e";

/** A second edge process beside the stack's, with its own settings, on the same services. */
const EDGE_START_MS = 150_000;
/** Each test starts its own edge, then makes a few requests. */
const TEST_MS = EDGE_START_MS + 60_000;

async function startEdge(env: Record<string, string>): Promise<{ baseUrl: string; proc: ManagedProcess }> {
  const stack = e2eStack();
  const port = await freePort();
  const logFile = join(stack.dataDir, "logs", `edge-${port}.log`);
  const proc = spawnManaged(
    `edge-${port}`,
    process.execPath,
    ["--require", "@odds/platform/tracing/register", join(REPO_ROOT, "services", "edge", "dist", "main.js")],
    {
      cwd: REPO_ROOT,
      logFile,
      env: {
        ...process.env,
        HTTP_PORT: String(port),
        EVENTS_SERVICE_ADDR: `127.0.0.1:${stack.ports.events}`,
        HISTORY_SERVICE_ADDR: `127.0.0.1:${stack.ports.history}`,
        CATALOGUE_SERVICE_ADDR: `127.0.0.1:${stack.ports.catalogue}`,
        USAGE_SERVICE_ADDR: `127.0.0.1:${stack.ports.usage}`,
        REDIS_URL: stack.uris.redis ?? "",
        CURSOR_SECRET: DEV_CURSOR_SECRET,
        ...env,
      },
    },
  );
  const baseUrl = `http://127.0.0.1:${port}/v2`;
  await waitUntil(
    `edge-${port}`,
    async () => {
      const res = await fetch(`${baseUrl}/health`);
      if (res.status !== 200 && res.status !== 410) throw new Error(`HTTP ${res.status}`);
    },
    // A fresh edge process loads and instruments its modules first: over 40 s on a busy machine.
    { timeoutMs: EDGE_START_MS, process: proc, logFile },
  );
  return { baseUrl, proc };
}

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
