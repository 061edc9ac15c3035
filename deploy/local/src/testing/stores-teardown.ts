import type { ManagedProcess } from "../processes";

export default async function teardown(): Promise<void> {
  const stores = (globalThis as { __ODDS_TEST_STORES__?: ManagedProcess[] }).__ODDS_TEST_STORES__ ?? [];
  await Promise.all(stores.map((store) => store.stop()));
}
