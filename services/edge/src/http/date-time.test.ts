import { parseDateTime } from "./date-time";

describe("parseDateTime: the contract's date-time", () => {
  it.each([
    ["2026-11-20", Date.UTC(2026, 10, 20)],
    ["2026-11-20T10:15Z", Date.UTC(2026, 10, 20, 10, 15)],
    ["2026-11-20T10:15:30.250Z", Date.UTC(2026, 10, 20, 10, 15, 30, 250)],
    ["2026-11-20T12:15:30+02:00", Date.UTC(2026, 10, 20, 10, 15, 30)],
    ["2026-11-20T05:15:30-05:00", Date.UTC(2026, 10, 20, 10, 15, 30)],
    ["2024-02-29", Date.UTC(2024, 1, 29)],
  ])("admits %s", (raw, expected) => {
    expect(parseDateTime(raw)).toBe(expected);
  });

  it.each([
    ["2026-02-30", "impossible day"],
    ["2026-11-31", "impossible day"],
    ["2025-02-29", "not a leap year"],
    ["2026-13-01", "impossible month"],
    ["2026-11-20 10:15:30Z", "space instead of T"],
    ["2026-11-20T10:15:30", "missing offset"],
    ["2026-11-20T24:00:00Z", "hour 24"],
    ["2026-11-20T10:60:00Z", "minute 60"],
    ["2026-11-20T10:15:30+2", "short offset"],
    ["1e309", "a number"],
    ["2026-11-20T10:15:30Z\u0000", "trailing NUL"],
    ["", "empty"],
  ])("refuses %s (%s)", (raw) => {
    expect(parseDateTime(raw)).toBeUndefined();
  });
});
