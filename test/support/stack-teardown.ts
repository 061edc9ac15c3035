import type { RunningStack } from "@odds/local";

export default async function teardown(): Promise<void> {
  const stack = (globalThis as { __ODDS_STACK__?: RunningStack }).__ODDS_STACK__;
  await stack?.stop();
}
