import type { FeedEvent } from "../feed-source";
import { BOOKMAKERS } from "./bookmakers";
import { MMA } from "./mma";
import { eventsBetween } from "./schedule";
import { SimulatedSource } from "./simulated-source";
import { TENNIS } from "./tennis";

const SEED = "competitors-seed";
const source = new SimulatedSource({
  id: "sim",
  rank: 10,
  seed: SEED,
  bookmakers: BOOKMAKERS.map((b) => b.bookmakerID),
  lagSeconds: 0,
  quietLeagues: [],
});
const WEEK_MS = 7 * 86_400_000;
const from = Date.parse("2026-10-05T00:00:00Z");

/** Final results of every event of the league kicked off in the four weeks from `from`. */
async function finals(leagueID: string): Promise<FeedEvent[]> {
  const snapshot = await source.fetchResults(new Date(from), new Date(from + 4 * WEEK_MS + 3 * 86_400_000));
  return snapshot.leagues.find((l) => l.leagueID === leagueID)?.events.filter((e) => e.state === "FINAL") ?? [];
}

/** Every market the event is priced on two days before kickoff, by its key (stat|entity|period|betType). */
async function pricedBefore(leagueID: string): Promise<{ event: FeedEvent; markets: Map<string, string[]> }> {
  const league = leagueID === "ATP" ? TENNIS.league : MMA.league;
  const [scheduled] = eventsBetween(SEED, league, from, from + WEEK_MS);
  if (!scheduled) throw new Error(`no ${leagueID} event`);
  const snapshot = await source.fetchSnapshot(new Date(scheduled.startsAtMs - 48 * 3_600_000));
  const event = snapshot.leagues
    .find((l) => l.leagueID === leagueID)
    ?.events.find((e) => e.eventID === scheduled.eventID) as FeedEvent;
  const markets = new Map<string, string[]>();
  for (const quote of event.books.flatMap((b) => b.quotes)) {
    const key = [quote.stat, quote.entity, quote.period, quote.betType].join("|");
    const sides = markets.get(key) ?? [];
    if (!sides.includes(quote.side)) sides.push(quote.side);
    markets.set(key, sides);
  }
  return { event, markets };
}

describe("tennis in the simulated feed", () => {
  test("a match is priced as bookmakers price tennis: winner, set betting, total games, game handicap", async () => {
    const { event, markets } = await pricedBefore("ATP");
    expect(event.eventID).toMatch(/^atp_\d{4}-\d{2}-\d{2}_[a-z_]+_vs_[a-z_]+$/);
    expect(event.home.teamID).toMatch(/^[A-Z_]+_ATP$/);
    expect(event.players).toEqual([]);
    expect(markets.get("POINTS|HOME|GAME|ML")).toEqual(["HOME"]);
    expect(markets.get("POINTS|AWAY|GAME|ML")).toEqual(["AWAY"]);
    expect(markets.get("POINTS|ALL|GAME|CS")?.sort()).toEqual(["0_2", "1_2", "2_0", "2_1"]);
    expect(markets.get("GAMES|ALL|GAME|OU")?.sort()).toEqual(["OVER", "UNDER"]);
    expect(markets.has("GAMES|HOME|GAME|SP") && markets.has("GAMES|AWAY|GAME|SP")).toBe(true);
  });

  test("results: each set's games, and sets and games won that agree with them and decide the match", async () => {
    const events = await finals("ATP");
    expect(events.length).toBeGreaterThanOrEqual(20);
    let threeSetters = 0;
    for (const event of events) {
      const sets = ["1S", "2S", "3S"].filter((s) => event.results[s]);
      expect(sets.length === 2 || sets.length === 3).toBe(true);
      if (sets.length === 3) threeSetters++;
      const won = { HOME: 0, AWAY: 0 };
      const games = { HOME: 0, AWAY: 0 };
      for (const set of sets) {
        const home = event.results[set]?.HOME?.points ?? 0;
        const away = event.results[set]?.AWAY?.points ?? 0;
        expect(Math.max(home, away)).toBeGreaterThanOrEqual(6);
        expect(Math.abs(home - away) >= 2 || Math.max(home, away) === 7).toBe(true);
        won[home > away ? "HOME" : "AWAY"]++;
        games.HOME += home;
        games.AWAY += away;
      }
      expect(Math.max(won.HOME, won.AWAY)).toBe(2);
      expect(event.results.GAME?.HOME).toEqual({ points: won.HOME, games: games.HOME });
      expect(event.results.GAME?.AWAY).toEqual({ points: won.AWAY, games: games.AWAY });
      expect([event.home.score, event.away.score]).toEqual([won.HOME, won.AWAY]);
    }
    expect(threeSetters).toBeGreaterThan(0);
    expect(threeSetters).toBeLessThan(events.length);
  });
});

describe("MMA in the simulated feed", () => {
  test("a fight is priced on winner, method of victory, total rounds and goes the distance", async () => {
    const { event, markets } = await pricedBefore("UFC");
    expect(event.eventID).toMatch(/^ufc_\d{4}-\d{2}-\d{2}_[a-z_]+_vs_[a-z_]+$/);
    expect(markets.get("POINTS|HOME|GAME|ML")).toEqual(["HOME"]);
    expect(markets.get("METHOD|ALL|GAME|PICK")?.sort()).toEqual([
      "AWAY_DECISION",
      "AWAY_KO",
      "AWAY_SUBMISSION",
      "HOME_DECISION",
      "HOME_KO",
      "HOME_SUBMISSION",
    ]);
    expect(markets.get("ROUNDS|ALL|GAME|OU")?.sort()).toEqual(["OVER", "UNDER"]);
    expect(markets.get("DISTANCE|ALL|GAME|YN")?.sort()).toEqual(["NO", "YES"]);
  });

  test("results: one winner with its method, the fight time in rounds, and the distance when decided", async () => {
    const events = await finals("UFC");
    expect(events.length).toBeGreaterThanOrEqual(15);
    const methods = new Set<string>();
    for (const event of events) {
      const game = event.results.GAME ?? {};
      const all = game.ALL ?? {};
      const rounds = all.rounds ?? 0;
      const scheduled = event.startsAt.toISOString().slice(11, 16) === "03:00" ? 5 : 3;
      expect(rounds).toBeGreaterThan(0);
      expect(rounds).toBeLessThanOrEqual(scheduled);
      const winners = (["HOME", "AWAY"] as const).filter((side) => game[side]?.points === 1);
      if (winners.length === 0) {
        expect(all.distance).toBe(1);
        continue;
      }
      expect(winners).toHaveLength(1);
      const { points: _points, ...method } = game[winners[0] as "HOME"] ?? {};
      expect(Object.values(method)).toEqual([1]);
      const how = Object.keys(method)[0] as string;
      methods.add(how);
      expect(all.distance).toBe(how === "decision" ? 1 : 0);
      if (how === "decision") expect(rounds).toBe(scheduled);
      else expect(rounds).toBeLessThan(scheduled);
    }
    expect([...methods].sort()).toEqual(["decision", "ko", "submission"]);
  });
});
