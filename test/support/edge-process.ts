import { join } from "node:path";
import { DEV_CURSOR_SECRET, freePort, REPO_ROOT, spawnManaged, waitUntil, type ManagedProcess } from "@odds/local";
import { e2eStack } from "./e2e";

/** How long a fresh edge process may take to serve: it loads its modules first, over 40 s on a busy machine. */
export const EDGE_START_MS = 150_000;

/** A second edge process beside the stack's, with its own settings, on the same services. */
export async function startEdgeBeside(env: Record<string, string>): Promise<{ baseUrl: string; proc: ManagedProcess }> {
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
    { timeoutMs: EDGE_START_MS, process: proc, logFile },
  );
  return { baseUrl, proc };
}
