import {
  BACKFILL_CYCLE_PREFIX,
  backfillCycleId,
  backfillFinished,
  backfillResults,
  replayBackfill,
  type PricedSides,
  type ReplayPiece,
  type ReplaySettings,
} from "./backfill";
import { cycleIdAt } from "./cycle-runner";
import type { BookObservation, EventState } from "./domain/model";
import { BOOKMAKERS } from "./sources/simulated/bookmakers";
import { SimulatedSource } from "./sources/simulated/simulated-source";

const FAIR = ["pinnacle", "betfair_ex_au"];
const now = new Date("2026-11-21T09:00:00Z");
const from = new Date(now.getTime() - 12 * 86_400_000);
const simulated = (id: string, rank: number, bookmakers: string[], lagSeconds: number) =>
  new SimulatedSource({ id, rank, seed: "backfill-seed", bookmakers, lagSeconds, quietLeagues: [] });
const source = simulated(
  "sim",
  10,
  BOOKMAKERS.map((b) => b.bookmakerID),
  0,
);

async function pieces(sources: SimulatedSource[], settings: ReplaySettings): Promise<ReplayPiece[]> {
  const out: ReplayPiece[] = [];
  for await (const piece of replayBackfill(sources, settings, FAIR)) out.push(piece);
  return out;
}

describe("the first-start backfill", () => {
  let events: EventState[];
  let firstResults: Map<string, EventState>;
  beforeAll(async () => {
    const replayed = await pieces([source], { from, now });
    const priced: PricedSides = new Map(replayed.flatMap((piece) => [...piece.pricedSides]));
    firstResults = new Map(replayed.flatMap((piece) => piece.firstResults.map((e) => [e.eventID, e])));
    events = (await backfillResults([source], from, now, FAIR, priced)).events;
  }, 240_000);

  test("finished events written in their final state carry the sides they were priced on, so they can be graded", () => {
    // An event kicking off right at the window's start was never priced inside it.
    const finished = events.filter(
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
    expect(events.some((e) => e.sportID === "TENNIS" && Object.keys(e.closedOdds ?? {}).length > 0)).toBe(true);
  });

  test("results corrected since first published keep their first result, written before the corrected one", () => {
    const corrected = events.filter((e) => e.resultsCorrectedAtMs > 0);
    expect(corrected.length).toBeGreaterThan(0);
    for (const event of corrected) {
      const first = firstResults.get(event.eventID);
      expect(first?.resultsCorrectedAtMs).toBe(0);
      expect(first?.results.game).not.toEqual(event.results.game);
      expect(first?.status.ended).toBe(true);
      expect(Object.keys(first?.closedOdds ?? {}).length).toBeGreaterThan(0);
    }
    const untouched = events.filter((e) => e.resultsCorrectedAtMs === 0 && e.status.ended);
    for (const event of untouched.slice(0, 20))
      expect(firstResults.get(event.eventID)?.results.game).toEqual(event.results.game);
  });
});

describe("the backfill's replay, streamed window by window", () => {
  // Both default sources (every bookmaker 90 s behind, and Betfair alone), so an event's snapshots from two sources interleave.
  const sources = [
    simulated(
      "sim-aggregator",
      10,
      BOOKMAKERS.map((b) => b.bookmakerID),
      90,
    ),
    simulated("sim-betfair-stream", 20, ["betfair_ex_au"], 0),
  ];
  const settings: ReplaySettings = { from: new Date(now.getTime() - 3 * 86_400_000), now, fullDays: 0.25 };

  /** Each event's snapshots in the order history receives them: its ticks are a function of exactly this. */
  const byEvent = (replayed: ReplayPiece[]): Map<string, BookObservation[]> => {
    const out = new Map<string, BookObservation[]>();
    for (const observation of replayed.flatMap((piece) => piece.observations)) {
      const list = out.get(observation.eventID) ?? [];
      list.push(observation);
      out.set(observation.eventID, list);
    }
    return out;
  };
  const results = (replayed: ReplayPiece[]) =>
    new Map(replayed.flatMap((piece) => piece.firstResults.map((e) => [e.eventID, e])));

  let streamed: ReplayPiece[];
  let whole: ReplayPiece[];
  beforeAll(async () => {
    streamed = await pieces(sources, settings);
    // One window over every kickoff: the replay as it was before it streamed, all in memory at once.
    whole = await pieces(sources, { ...settings, windowMs: Number.POSITIVE_INFINITY });
  }, 600_000);

  test("sends history exactly the snapshots of a single replay, each event's in the same order, in bounded pieces", () => {
    expect(whole).toHaveLength(1);
    expect(streamed.length).toBeGreaterThan(10);
    const [a, b] = [byEvent(streamed), byEvent(whole)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    // Compared as JSON: the same snapshots, quotes and order (a deep toEqual of ~100,000 quotes takes minutes).
    for (const [eventID, observations] of b) expect(JSON.stringify(a.get(eventID))).toBe(JSON.stringify(observations));
    // Every event's replay lies in one piece, and no piece holds more than a small part of the backfill.
    const pieceOf = new Map<string, number>();
    streamed.forEach((piece, i) => {
      for (const o of piece.observations) {
        expect(pieceOf.get(o.eventID) ?? i).toBe(i);
        pieceOf.set(o.eventID, i);
      }
    });
    const total = whole[0]!.observations.length;
    expect(Math.max(...streamed.map((p) => p.observations.length))).toBeLessThan(total / 2);
  });

  test("keeps the same priced market books and first results", () => {
    const priced = (replayed: ReplayPiece[]) => new Map(replayed.flatMap((piece) => [...piece.pricedSides]));
    const json = (map: Map<string, unknown>) => JSON.stringify([...map].sort(([x], [y]) => x.localeCompare(y)));
    expect(priced(streamed).size).toBeGreaterThan(10);
    expect(json(priced(streamed))).toBe(json(priced(whole)));
    expect(results(streamed).size).toBeGreaterThan(5);
    expect(json(results(streamed))).toBe(json(results(whole)));
  });

  test("replays the last days with every market, observed in play too", () => {
    const fullSince = now.getTime() - 0.25 * 86_400_000;
    const startsAt = new Map(whole[0]!.eventRefs.map((ref) => [ref.eventID, ref.startsAtMs]));
    const deep = whole[0]!.observations.filter((o) => startsAt.get(o.eventID)! >= fullSince);
    const older = whole[0]!.observations.filter((o) => startsAt.get(o.eventID)! < fullSince);
    const looks = (list: BookObservation[]) =>
      new Set(list.map((o) => `${o.eventID}|${o.observedAtMs}`)).size / new Set(list.map((o) => o.eventID)).size;
    expect(looks(deep)).toBeGreaterThan(2 * looks(older));
    const oddIDs = (list: BookObservation[]) => new Set(list.flatMap((o) => o.quotes.map((q) => q.oddID))).size;
    expect(oddIDs(deep)).toBeGreaterThan(5 * oddIDs(older));
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
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z#3" })).toBe(false);
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z#7/7" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "backfill-cycle-2026-11-18T09:00:00.000Z" })).toBe(true);
  });

  test("a regular cycle marks it done, even one cut after batch k of n: the next cycle writes what it missed", () => {
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#3/7" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#1/2" })).toBe(true);
    expect(backfillFinished({ atMs: 1, cycleID: "cycle-2026-11-21T09:02:00.000Z#3" })).toBe(true);
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
