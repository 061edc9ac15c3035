import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname } from "node:path";

export default async function teardown(): Promise<void> {
  for (const child of (globalThis as { __ODDS_FORWARDS__?: ChildProcess[] }).__ODDS_FORWARDS__ ?? []) child.kill();
  // The run's info file and its links to the pods' logs (the logs themselves are kept in CLUSTER_LOGS);
  // KEEP_TEST_DATA=1 keeps it.
  const infoFile = process.env.E2E_INFO_FILE;
  if (infoFile && !process.env.KEEP_TEST_DATA) rmSync(dirname(infoFile), { recursive: true, force: true });
}
