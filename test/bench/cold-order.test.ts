import { spreadOrder } from "./cold-order";

describe("spreadOrder", () => {
  it("visits every item exactly once", () => {
    for (const n of [0, 1, 2, 3, 10, 64, 763, 1637, 1638]) {
      const items = Array.from({ length: n }, (_, i) => i);
      const order = spreadOrder(items);
      expect(order).toHaveLength(n);
      expect(new Set(order).size).toBe(n);
    }
  });

  it("spreads any short run of requests over the whole list", () => {
    const n = 1637;
    const order = spreadOrder(Array.from({ length: n }, (_, i) => i));
    // Each tenth of the list gets its share of the first 100 requests, and of the 100 after them.
    for (const start of [0, 100, 900]) {
      const tenths = new Array(10).fill(0) as number[];
      for (const item of order.slice(start, start + 100)) tenths[Math.floor((item * 10) / n)]! += 1;
      for (const count of tenths) expect(count).toBeGreaterThanOrEqual(8);
    }
    // In serving order the first 100 requests never left the first tenth.
    expect(Math.max(...order.slice(0, 100))).toBeGreaterThan(n / 2);
  });
});
