import type { ChildProcess } from "node:child_process";

export default async function teardown(): Promise<void> {
  for (const child of (globalThis as { __ODDS_FORWARDS__?: ChildProcess[] }).__ODDS_FORWARDS__ ?? []) child.kill();
}
