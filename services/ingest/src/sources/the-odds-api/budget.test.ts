import { farReserve, pollingInterval, type PollingStep } from "./budget";

const HOUR = 3_600_000;
const STEPS: PollingStep[] = [
  { withinMs: 3 * HOUR, everyMs: 0 },
  { withinMs: 24 * HOUR, everyMs: 30 * 60_000 },
  { withinMs: 168 * HOUR, everyMs: 180 * 60_000 },
];

describe("polling far-off events as the day's credits run low", () => {
  test("with the whole budget left each event is polled at its step's interval", () => {
    expect(pollingInterval(STEPS, 2 * HOUR)).toBe(0);
    expect(pollingInterval(STEPS, 12 * HOUR)).toBe(30 * 60_000);
    expect(pollingInterval(STEPS, 168 * HOUR)).toBe(180 * 60_000);
    expect(pollingInterval(STEPS, 400 * HOUR)).toBe(180 * 60_000);
  });

  test("as credits run low, far-off events slow down first and most; near ones keep their rate", () => {
    // Half the budget left: a week away is polled half as often, half a day away barely slower.
    expect(pollingInterval(STEPS, 168 * HOUR, 0.5)).toBe(360 * 60_000);
    const halfDay = pollingInterval(STEPS, 12 * HOUR, 0.5);
    expect(halfDay).toBeGreaterThan(30 * 60_000);
    expect(halfDay).toBeLessThan(32 * 60_000);
    expect(pollingInterval(STEPS, 0, 0.1)).toBe(0);
    // A tenth left: the week-away event ten times less often.
    expect(pollingInterval(STEPS, 168 * HOUR, 0.1)).toBe(1_800 * 60_000);
    for (const left of [1, 0.5, 0.2, 0.05]) {
      const ratio = (ms: number) => pollingInterval(STEPS, ms, left) / pollingInterval(STEPS, ms);
      expect(ratio(120 * HOUR)).toBeGreaterThanOrEqual(ratio(48 * HOUR));
      expect(ratio(48 * HOUR)).toBeGreaterThanOrEqual(ratio(12 * HOUR));
    }
  });

  test("far-off events need more of the budget left before they are polled at all", () => {
    expect(farReserve(1_000, 0)).toBe(0);
    expect(farReserve(1_000, 84 * HOUR)).toBe(250);
    expect(farReserve(1_000, 168 * HOUR)).toBe(500);
    expect(farReserve(1_000, 400 * HOUR)).toBe(500);
  });
});
