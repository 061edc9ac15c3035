import type { LoadResult } from "./load-worker";
import { ratioTo, referenceFailures } from "./ratio";

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
});
