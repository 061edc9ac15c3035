import { LEAGUES } from "./fixtures";
import { correctionOf, endMs, matchStateAt } from "./match";
import { eventsBetween } from "./schedule";

const SEED = "corrections-seed";
const from = Date.parse("2026-09-07T00:00:00Z");
const events = LEAGUES.flatMap((league) => eventsBetween(SEED, league, from, from + 28 * 86_400_000));

describe("corrected final scores in the simulated feed", () => {
  test("a few team-sport events are corrected, deterministically per seed, never tennis or MMA", () => {
    const corrected = events.filter((event) => correctionOf(SEED, event));
    expect(corrected.length).toBeGreaterThan(0.03 * events.length);
    expect(corrected.length).toBeLessThan(0.15 * events.length);
    expect(corrected.every((event) => !["TENNIS", "MMA"].includes(event.league.sportID))).toBe(true);
    expect(events.filter((event) => correctionOf(SEED, event)).map((e) => e.eventID)).toEqual(
      corrected.map((e) => e.eventID),
    );
  });

  test("the final score changes once, after the result went final, and the feed marks when", () => {
    for (const event of events.filter((e) => correctionOf(SEED, e)).slice(0, 10)) {
      const correction = correctionOf(SEED, event);
      if (!correction) continue;
      expect(correction.atMs).toBeGreaterThan(endMs(SEED, event) + 60 * 60_000);
      const before = matchStateAt(SEED, event, correction.atMs - 1);
      const after = matchStateAt(SEED, event, correction.atMs);
      expect(before.phase).toBe("final");
      expect(before.resultsCorrectedAtMs).toBeUndefined();
      expect(after.resultsCorrectedAtMs).toBe(correction.atMs);
      const side = correction.side === "home" ? "HOME" : "AWAY";
      const other = correction.side === "home" ? "AWAY" : "HOME";
      expect(after.results.game?.[side]?.points).toBe((before.results.game?.[side]?.points ?? 0) + correction.points);
      expect(after.results.game?.[other]).toEqual(before.results.game?.[other]);
      expect(matchStateAt(SEED, event, correction.atMs + 86_400_000).results).toEqual(after.results);
    }
  });
});
