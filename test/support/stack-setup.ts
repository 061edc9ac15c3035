// Jest global setup for end-to-end tests: the whole stack as real processes on free ports,
// with a fast ingest cycle and a short backfill. Tests read E2E_* variables.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchFolder, startStack } from "@odds/local";

export default async function setup(): Promise<void> {
  const dataDir = scratchFolder("odds-e2e-");
  const stack = await startStack({
    dataDir,
    ports: "free",
    persistRedis: false,
    serviceEnv: {
      ingest: { INGEST_INTERVAL_MS: "5000", BACKFILL_DAYS: "35" },
    },
  });
  const info = {
    baseUrl: stack.baseUrl,
    apiKeys: stack.apiKeys,
    uris: stack.uris,
    ports: stack.ports,
    dataDir,
  };
  writeFileSync(join(dataDir, "e2e.json"), JSON.stringify(info));
  process.env.E2E_INFO_FILE = join(dataDir, "e2e.json");
  (globalThis as { __ODDS_STACK__?: unknown }).__ODDS_STACK__ = stack;
}
