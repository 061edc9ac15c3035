import { BACKFILL_CYCLE_PREFIX, backfillCycleId, backfillFinished, buildBackfill } from "./backfill";
import { cycleIdAt } from "./cycle-runner";
import { BOOKMAKERS } from "./sources/simulated/bookmakers";
import { SimulatedSource } from "./sources/simulated/simulated-source";

const now = new Date("2026-11-21T09:00:00Z");
const from = new Date(now.getTime() - 12 * 86_400_000);
const source = new SimulatedSource({
  id: "sim",
  rank: 10,
  seed: "backfill-seed",
  bookmakers: BOOKMAKERS.map((b) => b.bookmakerID),
  lagSeconds: 0,
  quietLeagues: [],
});

describe("the first-start backfill", () => {
  let content: Awaited<ReturnType<typeof buildBackfill>>;
  beforeAll(async () => {
    content = await buildBackfill([source], from, now, ["pinnacle", "betfair_ex_au"]);
  }, 240_000);

  test("finished events written in their final state carry the sides they were priced on, so they can be graded", () => {
    // An event kicking off right at the window's start was never priced inside it.
    const finished = content.events.filter(
      (e) => e.status.ended && !e.status.cancelled && e.status.startsAtMs > from.getTime() + 3_600_000,
    );
    expect(finished.length).toBeGreaterThan(30);
    for (const event of finished) {
      expect(event.odds).toEqual({});
      const sides = Object.values(event.closedOdds ?? {});
      // At least the headline market (moneyline, or the 3-way result in soccer), both or all sides.
      expect(
        sides.filter((s) => s.periodID === "game" && (s.betTypeID === "ml" || s.betTypeID === "ml3way")).length,
      ).toBeGreaterThanOrEqual(2);
    }
    expect(content.events.some((e) => e.sportID === "TENNIS" && Object.keys(e.closedOdds ?? {}).length > 0)).toBe(true);
  });

  test("results corrected since first published keep their first result, written before the corrected one", () => {
    const corrected = content.events.filter((e) => e.resultsCorrectedAtMs > 0);
    expect(corrected.length).toBeGreaterThan(0);
    for (const event of corrected) {
      const first = content.firstResults.get(event.eventID);
      expect(first?.resultsCorrectedAtMs).toBe(0);
      expect(first?.results.game).not.toEqual(event.results.game);
      expect(first?.status.ended).toBe(true);
      expect(Object.keys(first?.closedOdds ?? {}).length).toBeGreaterThan(0);
    }
    const untouched = content.events.filter((e) => e.resultsCorrectedAtMs === 0 && e.status.ended);
    for (const event of untouched.slice(0, 20))
      expect(content.firstResults.get(event.eventID)?.results.game).toEqual(event.results.game);
  });
});

describe("whether a restarted ingest's backfill finished", () => {
  test("a backfill cut anywhere is written again: nothing applied, first results only, or an events batch short of the last", () => {
    expect(backfillFinished({ atMs: 0, cycleID: "" })).toBe(false);
    // Killed after the corrected events' first results, or between two events batches of the backfill.
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-first-results-cycle-2026-11-18T09:00:00.000Z#1" })).toBe(
      false,
    );
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z#3/7" })).toBe(false);
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z#7/7" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z" })).toBe(true);
  });

  test("a regular cycle marks it done, even one cut after batch k of n: the next cycle writes what it missed", () => {
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#3/7" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#1/2" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#7/7" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z" })).toBe(true);
  });

  test("the backfill's writes carry its own id, which a regular cycle's id never starts with", () => {
    const id = backfillCycleId(from);
    expect(id).toBe("backfill-cycle-2026-11-09T09:00:00.000Z");
    expect(id.startsWith(BACKFILL_CYCLE_PREFIX)).toBe(true);
    expect(cycleIdAt(now).startsWith(BACKFILL_CYCLE_PREFIX)).toBe(false);
  });
});
