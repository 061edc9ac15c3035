import type { FeedEvent, FeedSnapshot } from "../feed-source";
import { BOOKMAKERS } from "./bookmakers";
import { LEAGUES } from "./fixtures";
import { eventsBetween, type ScheduledEvent } from "./schedule";
import { SimulatedSource, withMargin } from "./simulated-source";

const ALL_BOOKS = BOOKMAKERS.map((b) => b.bookmakerID);
const at = new Date("2026-11-21T09:00:00Z");
const source = (seed = "test-seed", extra: Partial<ConstructorParameters<typeof SimulatedSource>[0]> = {}) =>
  new SimulatedSource({ id: "sim", rank: 10, seed, bookmakers: ALL_BOOKS, lagSeconds: 0, quietLeagues: [], ...extra });
const events = (snapshot: FeedSnapshot): FeedEvent[] => snapshot.leagues.flatMap((l) => l.events);

describe("bookmaker margin", () => {
  test("the power method hits the overround and loads longshots more than favourites", () => {
    const implied = withMargin([0.85, 0.15], 1.06);
    expect((implied[0] ?? 0) + (implied[1] ?? 0)).toBeCloseTo(1.06, 6);
    expect((implied[1] ?? 0) / 0.15).toBeGreaterThan((implied[0] ?? 0) / 0.85);
    expect(withMargin([0.5, 0.5], 1.05)).toEqual([expect.closeTo(0.525, 6), expect.closeTo(0.525, 6)]);
  });
});

describe("the simulated source", () => {
  let snapshot: FeedSnapshot;
  beforeAll(async () => {
    snapshot = await source().fetchSnapshot(at);
  });

  test("is deterministic for a seed and an instant, and differs for another seed", async () => {
    expect(await source().fetchSnapshot(at)).toEqual(snapshot);
    const other = await source("another-seed").fetchSnapshot(at);
    const prices = (s: FeedSnapshot) =>
      events(s).flatMap((e) => e.books.flatMap((b) => b.quotes.map((q) => q.decimal)));
    expect(prices(other)).not.toEqual(prices(snapshot));
  });

  test("carries every league with real clubs and the ID shapes of the contract", () => {
    expect(snapshot.leagues.map((l) => [l.leagueID, l.sportID])).toEqual(LEAGUES.map((l) => [l.leagueID, l.sportID]));
    for (const league of snapshot.leagues) expect(league.events.length).toBeGreaterThan(0);
    for (const event of events(snapshot)) {
      expect(event.eventID).toMatch(
        /^(afl|nrl|aleague|epl|bbl|ipl|atp|ufc)_\d{4}-\d{2}-\d{2}_[a-z0-9_]+_vs_[a-z0-9_]+$/,
      );
      expect(event.home.teamID).toMatch(/^[A-Z0-9_]+_(AFL|NRL|A_LEAGUE|EPL|BBL|IPL|ATP|UFC)$/);
      for (const player of event.players) expect(player.playerID).toMatch(/^[A-Z0-9_]+_\d+_[A-Z_]+$/);
    }
    const afl = events(snapshot).flatMap((e) => [e.home.teamID, e.away.teamID]);
    expect(afl).toContain("COLLINGWOOD_MAGPIES_AFL");
    expect(events(snapshot).flatMap((e) => e.players.map((p) => p.playerID))).toContain("NICK_DAICOS_1_AFL");
  });

  test("prices two-way main markets with an overround a trader would recognise", () => {
    const overrounds: number[] = [];
    for (const event of events(snapshot)) {
      for (const book of event.books) {
        const ml = book.quotes.filter((q) => q.betType === "ML" && q.period === "GAME");
        if (ml.length === 2) overrounds.push(ml.reduce((sum, q) => sum + 1 / q.decimal, 0));
      }
    }
    expect(overrounds.length).toBeGreaterThan(100);
    const sorted = overrounds.sort((a, b) => a - b);
    expect(sorted[0]).toBeGreaterThanOrEqual(0.995);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeGreaterThan(1.02);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(1.1);
    expect(sorted.at(-1)).toBeLessThan(1.14);
  });

  test("the exchange quotes lay prices above its back prices and bet limits; a sharp book publishes limits too", () => {
    const quotes = events(snapshot).flatMap((e) =>
      e.books.filter((b) => b.bookmaker === "betfair_ex_au").flatMap((b) => b.quotes),
    );
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      expect(q.layDecimal).toBeGreaterThan(q.decimal);
      expect(q.maxStake).toBeGreaterThan(0);
    }
    const pinnacle = events(snapshot).flatMap((e) =>
      e.books.filter((b) => b.bookmaker === "pinnacle").flatMap((b) => b.quotes),
    );
    expect(pinnacle.every((q) => (q.maxStake ?? 0) > 0)).toBe(true);
  });

  test("offers every market family: ml, ml3way, sp, ou, sub-periods, alternate lines, yes/no, pick, odd/even, player and team props", () => {
    const quotes = events(snapshot).flatMap((e) => e.books.flatMap((b) => b.quotes));
    const betTypes = new Set(quotes.map((q) => q.betType));
    for (const betType of ["ML", "ML3WAY", "SP", "OU", "YN", "PICK", "EO"]) expect(betTypes).toContain(betType);
    const periods = new Set(quotes.map((q) => q.period));
    for (const period of ["GAME", "1H", "1Q", "1I", "1IX6"]) expect(periods).toContain(period);
    expect(quotes.some((q) => !q.mainLine)).toBe(true);
    expect(quotes.some((q) => /_\d+_[A-Z_]+$/.test(q.entity))).toBe(true);
    expect(quotes.some((q) => q.entity === "HOME" && q.betType === "OU")).toBe(true);
    expect(quotes.some((q) => q.suspended)).toBe(true);
  });

  test("an event goes upcoming → live with a period and scores → ended → final with results", async () => {
    const sim = source();
    const target = events(snapshot).find((e) => e.state === "SCHEDULED" && e.eventID.startsWith("afl_")) as FeedEvent;
    const find = async (offsetMinutes: number) =>
      events(await sim.fetchSnapshot(new Date(target.startsAt.getTime() + offsetMinutes * 60_000))).find(
        (e) => e.eventID === target.eventID,
      ) as FeedEvent;
    const live = await find(50);
    expect(live.state).toBe("LIVE");
    expect(live.currentPeriod).toBe("2Q");
    expect(live.periodsEnded).toEqual(["1Q"]);
    expect((live.home.score ?? 0) + (live.away.score ?? 0)).toBeGreaterThan(0);
    expect(live.books.some((b) => b.quotes.length > 0)).toBe(true);
    const ended = await find(200);
    expect(ended.state).toBe("ENDED");
    expect(ended.books.every((b) => b.quotes.length === 0)).toBe(true);
    const final = await find(300);
    expect(final.state).toBe("FINAL");
    expect(final.results.GAME?.HOME?.points).toBe(final.home.score);
    expect(final.results["1Q"]?.AWAY?.goals).toBeGreaterThanOrEqual(0);
    expect(Object.keys(final.results.GAME ?? {}).some((entity) => entity.endsWith("_AFL"))).toBe(true);
  });

  test("schedules cancelled and delayed events, and keeps events that finished days ago", async () => {
    const sim = source();
    const scheduled = LEAGUES.flatMap((league) =>
      eventsBetween("test-seed", league, at.getTime(), at.getTime() + 60 * 86_400_000),
    );
    const cancelled = scheduled.find((e) => e.cancelledAtMs !== undefined) as ScheduledEvent;
    const delayed = scheduled.find((e) => e.delayed) as ScheduledEvent;
    const stateOf = async (event: ScheduledEvent, atMs: number) =>
      events(await sim.fetchSnapshot(new Date(atMs))).find((e) => e.eventID === event.eventID);
    const afterCancel = await stateOf(cancelled, (cancelled.cancelledAtMs ?? 0) + 60_000);
    expect(afterCancel?.state).toBe("CANCELLED");
    expect(afterCancel?.books.every((b) => b.quotes.length === 0)).toBe(true);
    expect((await stateOf(delayed, delayed.startsAtMs + 60_000))?.state).toBe("DELAYED");
    const results = await sim.fetchResults(new Date(at.getTime() - 20 * 86_400_000), at);
    expect(events(results).length).toBeGreaterThan(50);
    expect(events(results).every((e) => e.state === "FINAL" || e.state === "CANCELLED")).toBe(true);
  });

  test("a quiet league stops at its last write while the others keep writing", async () => {
    const quietSince = new Date(at.getTime() - 50 * 60_000);
    const quiet = await source("test-seed", { quietLeagues: ["NRL"], quietSince }).fetchSnapshot(at);
    expect(quiet.leagues.find((l) => l.leagueID === "NRL")?.lastWriteAt).toEqual(quietSince);
    expect(quiet.leagues.find((l) => l.leagueID === "AFL")?.lastWriteAt).toEqual(at);
  });

  test("replays the past oldest first with opens, moves, limit changes and withdrawals", async () => {
    const from = new Date(at.getTime() - 35 * 86_400_000);
    const snapshots = await source().replay({
      from,
      to: at,
      startsFromMs: from.getTime(),
      startsBeforeMs: Number.POSITIVE_INFINITY,
      sparseBefore: new Date(at.getTime() - 28 * 86_400_000),
    });
    const instants = snapshots.map((s) => s.leagues[0]?.lastWriteAt.getTime() ?? 0);
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(instants[0]).toBeGreaterThanOrEqual(from.getTime());
    const betfairStakes = new Map<string, Set<number>>();
    let withdrawn = 0;
    for (const s of snapshots) {
      for (const e of events(s)) {
        for (const b of e.books) {
          if (b.quotes.length === 0) withdrawn++;
          if (b.bookmaker !== "betfair_ex_au") continue;
          for (const q of b.quotes) {
            const key = `${e.eventID}|${q.entity}|${q.side}`;
            betfairStakes.set(key, (betfairStakes.get(key) ?? new Set()).add(q.maxStake ?? 0));
          }
        }
      }
    }
    expect(withdrawn).toBeGreaterThan(0);
    expect([...betfairStakes.values()].some((stakes) => stakes.size > 1)).toBe(true);
  });
});
