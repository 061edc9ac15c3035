import { parseRetryAfter, redact } from "./upstream-client";

describe("upstream HTTP helpers", () => {
  test("Retry-After is read as delta-seconds or an HTTP date", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });

  test("keys in query strings never reach the logs", () => {
    expect(redact("https://api.the-odds-api.com/v4/sports/x/odds?apiKey=secret&regions=au")).toBe(
      "https://api.the-odds-api.com/v4/sports/x/odds?apiKey=***&regions=au",
    );
  });
});
