import { isStale, STALE_AFTER_MS } from "./staleness";

const NOW = Date.parse("2026-11-21T12:00:00Z");

describe("staleness", () => {
  it("is the contract's 45 minutes without a source write", () => {
    expect(STALE_AFTER_MS).toBe(45 * 60_000);
    expect(isStale(NOW - 44 * 60_000 - 59_999, NOW)).toBe(false);
    expect(isStale(NOW - 45 * 60_000, NOW)).toBe(true);
  });
});
