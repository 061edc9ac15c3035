import type { RunningStack } from "@odds/local";
import { removeE2eDataDir } from "./e2e";

export default async function teardown(): Promise<void> {
  const stack = (globalThis as { __ODDS_STACK__?: RunningStack }).__ODDS_STACK__;
  await stack?.stop();
  // The stack's data folder (stores, logs, the soak's summary) takes up to ~400 MB a run.
  removeE2eDataDir();
}
