import { spreadOrder, variantRounds } from "./cold-order";

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

describe("variantRounds", () => {
  const request = (item: number, k: number) => `${item}/${k}`;

  it("takes every item's first variant, then every second one, and never repeats a request", () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    const variants = (item: number) => item % 3; // 0, 1 or 2 variants
    const requests = variantRounds(items, variants, request, 1_000);
    // Items with a variant: 1, 2, 4, 5, 7, 8 have a first; 2, 5, 8 a second; nobody a third.
    expect(requests).toHaveLength(9);
    expect(new Set(requests).size).toBe(9);
    expect(requests.slice(0, 6).every((r) => r.endsWith("/0"))).toBe(true);
    expect(requests.slice(6).sort()).toEqual(["2/1", "5/1", "8/1"]);
  });

  it("stops at the count, within a round", () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const requests = variantRounds(items, () => 5, request, 250);
    expect(requests).toHaveLength(250);
    expect(new Set(requests).size).toBe(250);
    expect(requests.filter((r) => r.endsWith("/2"))).toHaveLength(50);
  });

  it("visits each round in spread order", () => {
    const items = Array.from({ length: 1637 }, (_, i) => i);
    const first = variantRounds(items, () => 1, request, 100).map((r) => Number(r.split("/")[0]));
    expect(first).toEqual(spreadOrder(items).slice(0, 100));
  });
});
