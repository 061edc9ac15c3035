import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { RunningStack } from "@odds/local";

export default async function teardown(): Promise<void> {
  const stack = (globalThis as { __ODDS_STACK__?: RunningStack }).__ODDS_STACK__;
  await stack?.stop();
  // The stack's data folder (stores, logs, the soak's summary) takes up to ~400 MB a run;
  // KEEP_TEST_DATA=1 keeps it for a post-mortem.
  const infoFile = process.env.E2E_INFO_FILE;
  if (infoFile && !process.env.KEEP_TEST_DATA) rmSync(dirname(infoFile), { recursive: true, force: true });
}
