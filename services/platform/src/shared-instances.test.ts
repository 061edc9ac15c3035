import { SharedInstances } from "./shared-instances";

describe("SharedInstances", () => {
  it("hands out the first instance made for a key, and starts over past its bound", () => {
    const pool = new SharedInstances<string[]>(2);
    const first = pool.of("a", () => ["a"]);
    expect(pool.of("a", () => ["a"])).toBe(first);
    const b = pool.of("b", () => ["b"]);
    expect(pool.of("b", () => ["b"])).toBe(b);
    // A third key clears the pool: "a" is made again, a new instance equal to the first.
    pool.of("c", () => ["c"]);
    const again = pool.of("a", () => ["a"]);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
