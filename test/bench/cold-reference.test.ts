import { coldSample, nextFirstPath } from "./cold-reference";

describe("a cold window's reference sample", () => {
  test("spreads evenly over the requests the window sent, from where it began", () => {
    expect(coldSample(100, 40, 1000, 4)).toEqual([100, 110, 120, 130]);
    expect(coldSample(0, 3, 1000, 64)).toEqual([0, 1, 2]);
  });

  test("wraps past the end of the paths, and never names a path twice", () => {
    expect(coldSample(8, 6, 10, 6)).toEqual([8, 9, 0, 1, 2, 3]);
    // A window that sent more than every path (it went round) samples the whole list once.
    const all = coldSample(5, 35, 10, 64);
    expect([...all].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const many = coldSample(17, 20_000, 20_000, 64);
    expect(new Set(many).size).toBe(64);
    expect(many.every((index) => index >= 0 && index < 20_000)).toBe(true);
  });

  test("a window that sent nothing has no sample", () => {
    expect(coldSample(3, 0, 10)).toEqual([]);
  });

  test("the next window begins after the last request sent, wrapping", () => {
    expect(nextFirstPath(0, 150, 1640)).toBe(150);
    expect(nextFirstPath(1600, 100, 1640)).toBe(60);
    expect(nextFirstPath(0, 0, 0)).toBe(0);
  });
});
