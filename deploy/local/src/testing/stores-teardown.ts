import type { ManagedProcess } from "../processes";
import { removeScratchFolder } from "./scratch";

export default async function teardown(): Promise<void> {
  const stores = (globalThis as { __ODDS_TEST_STORES__?: ManagedProcess[] }).__ODDS_TEST_STORES__ ?? [];
  await Promise.all(stores.map((store) => store.stop()));
  // Each run's stores take ~80 MB; KEEP_TEST_DATA=1 keeps them (and their logs) for a post-mortem.
  removeScratchFolder(process.env.TEST_STORES_DIR);
}
