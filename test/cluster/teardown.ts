import type { ChildProcess } from "node:child_process";
import { removeE2eDataDir } from "../support/e2e";

export default async function teardown(): Promise<void> {
  for (const child of (globalThis as { __ODDS_FORWARDS__?: ChildProcess[] }).__ODDS_FORWARDS__ ?? []) child.kill();
  // The run's info file and its links to the pods' logs (the logs themselves are kept in CLUSTER_LOGS).
  removeE2eDataDir();
}
