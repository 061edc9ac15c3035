import type { LoadResult } from "./load-worker";
import { apiRefusals, ratioTo, referenceFailures, servedPerSecond } from "./ratio";

const result = (requestsPerSecond: number, non2xx = 0): LoadResult => ({
  requestsPerSecond,
  p50Ms: 1,
  p99Ms: 2,
  bytesPerSecond: 0,
  meanAnswerBytes: 0,
  requests: requestsPerSecond * 3,
  errors: 0,
  non2xx,
  windowSeconds: 3,
  firstPath: 0,
  pathsSent: 1,
});

describe("the bench's ratios to a reference", () => {
  test("are the API's throughput over the reference's", () => {
    expect(ratioTo(result(500), result(2_000))).toBe(0.25);
    expect(referenceFailures(result(2_000))).toBe("");
  });

  test("are not given where a side completed nothing or the reference answered other than 2xx", () => {
    expect(ratioTo(result(0), result(2_000))).toBeUndefined();
    expect(ratioTo(result(500), result(0))).toBeUndefined();
    expect(ratioTo(result(500), undefined)).toBeUndefined();
    // A floor whose Redis call failed answers 503 fast: it is not the floor it stands for.
    const failed = result(12_000, 36_000);
    expect(ratioTo(result(500), failed)).toBeUndefined();
    expect(referenceFailures(failed)).toBe(" (36000 answers not 2xx: no ratio)");
  });

  test("count the API's 2xx answers only: refusals answered at once are not pages served", () => {
    // Cold 10,000-market pages at 64 connections in the run of b11d34d: 1,133 answers in 3 s, 1,060 of them 429
    // (heavy pages past their queue), against a bare server at 86 answers a second.
    const api = { ...result(377.67), requests: 1_133, non2xx: 1_060 };
    expect(servedPerSecond(api)).toBeCloseTo(24.33, 2);
    expect(ratioTo(api, result(86))).toBeCloseTo(0.283, 3);
    expect(apiRefusals(api)).toBe(" (1060 of 1133 answers not 2xx: its ratios count the 2xx only)");
    // Every answer refused: measured, and nothing served.
    expect(ratioTo({ ...result(500), non2xx: 1_500 }, result(2_000))).toBe(0);
    expect(apiRefusals(result(500))).toBe("");
    expect(servedPerSecond(result(500))).toBe(500);
  });
});
