import { secondsUntilReset, windowAt } from "./windows";

describe("rate-limit windows", () => {
  const now = Date.UTC(2026, 10, 21, 23, 59, 58, 250);

  it("aligns second, minute, hour and day windows to UTC boundaries", () => {
    expect(windowAt("per-second", now)).toEqual({ window: "per-second", startMs: now - 250, endMs: now + 750 });
    expect(windowAt("per-minute", now).startMs).toBe(Date.UTC(2026, 10, 21, 23, 59));
    expect(windowAt("per-hour", now).endMs).toBe(Date.UTC(2026, 10, 22, 0));
    expect(windowAt("per-day", now)).toMatchObject({ startMs: Date.UTC(2026, 10, 21), endMs: Date.UTC(2026, 10, 22) });
  });

  it("uses the calendar month, including a year rollover and a short February", () => {
    expect(windowAt("per-month", Date.UTC(2026, 11, 31, 12))).toMatchObject({
      startMs: Date.UTC(2026, 11, 1),
      endMs: Date.UTC(2027, 0, 1),
    });
    const feb = windowAt("per-month", Date.UTC(2027, 1, 10));
    expect((feb.endMs - feb.startMs) / 86_400_000).toBe(28);
  });

  it("counts whole seconds until the reset, rounding up and never 0", () => {
    expect(secondsUntilReset(windowAt("per-minute", now), now)).toBe(2);
    expect(secondsUntilReset(windowAt("per-second", now), now)).toBe(1);
    expect(secondsUntilReset({ window: "per-second", startMs: 0, endMs: 1000 }, 1000)).toBe(1);
  });
});
