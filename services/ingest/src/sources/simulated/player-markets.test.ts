import type { FeedEvent, FeedQuote } from "../feed-source";
import { BOOKMAKERS } from "./bookmakers";
import { LEAGUES } from "./fixtures";
import { matchStateAt, playerIDIn } from "./match";
import { playerExpectations } from "./player-markets";
import { eventsBetween, type ScheduledEvent } from "./schedule";
import { SimulatedSource } from "./simulated-source";

const SEED = "depth-seed";
const at = new Date("2026-11-21T09:00:00Z");
const source = (extra: Partial<ConstructorParameters<typeof SimulatedSource>[0]> = {}) =>
  new SimulatedSource({
    id: "sim",
    rank: 10,
    seed: SEED,
    bookmakers: BOOKMAKERS.map((b) => b.bookmakerID),
    lagSeconds: 0,
    quietLeagues: [],
    ...extra,
  });

/** The first upcoming event of each league, priced with every market open. */
async function upcomingByLeague(): Promise<Map<string, FeedEvent>> {
  const snapshot = await source({ marketsOpenDays: 14 }).fetchSnapshot(at);
  const out = new Map<string, FeedEvent>();
  for (const league of snapshot.leagues) {
    const event = league.events.find((e) => e.state === "SCHEDULED" && e.books.some((b) => b.quotes.length > 0));
    if (event) out.set(league.leagueID, event);
  }
  return out;
}

const quotesOf = (event: FeedEvent): FeedQuote[] => event.books.flatMap((b) => b.quotes);
const isPlayer = (entity: string) => /_\d+_[A-Z_]+$/.test(entity);
/** stat|betType of every player market priced on the event. */
const playerMarkets = (event: FeedEvent) =>
  new Set(quotesOf(event).flatMap((q) => (isPlayer(q.entity) ? [`${q.stat}|${q.betType}`] : [])));

describe("simulated feed depth", () => {
  let upcoming: Map<string, FeedEvent>;
  beforeAll(async () => {
    upcoming = await upcomingByLeague();
  }, 120_000);

  test("every team names its full match-day squad, with playerIDs unique in the league", () => {
    const sizes: Record<string, number> = { AFL: 23, NRL: 17, EPL: 18, A_LEAGUE: 18, BBL: 11, IPL: 12 };
    // Team sports only: tennis and MMA events are two competitors without squads.
    const teamLeagues = LEAGUES.filter((league) => league.leagueID in sizes);
    expect(teamLeagues.map((league) => league.leagueID).sort()).toEqual(Object.keys(sizes).sort());
    for (const league of teamLeagues) {
      const events = eventsBetween(SEED, league, at.getTime(), at.getTime() + 21 * 86_400_000);
      expect(events.length).toBeGreaterThan(0);
      const ids = new Map<string, string>();
      for (const event of events) {
        for (const team of [event.home, event.away]) {
          expect(team.players).toHaveLength(sizes[league.leagueID] ?? -1);
          for (const player of team.players) {
            // One name, one team: a generated squad member never shares a name across clubs.
            expect(ids.get(player.name) ?? team.long).toBe(team.long);
            ids.set(player.name, team.long);
          }
        }
      }
    }
  });

  test("prices the player markets Australian books offer, per sport", () => {
    const expected: Record<string, string[]> = {
      AFL: ["DISPOSALS|OU", "GOALS|YN", "GOALS|OU", "MARKS|OU", "TACKLES|OU"],
      NRL: ["TRIES|YN", "FIRSTTRYSCORER|YN"],
      EPL: ["GOALS|YN", "CARDS|YN", "SHOTSONTARGET|OU", "SAVES|OU"],
      BBL: ["POINTS|OU", "WICKETS|OU"],
    };
    for (const [leagueID, markets] of Object.entries(expected)) {
      const event = upcoming.get(leagueID);
      expect(event).toBeDefined();
      const priced = playerMarkets(event!);
      for (const market of markets) expect(priced).toContain(market);
    }
    // Top team batter: a pick over one side's batters, the sides naming the players.
    const topBatter = quotesOf(upcoming.get("IPL")!).filter((q) => q.betType === "PICK" && q.entity === "HOME");
    expect(new Set(topBatter.map((q) => q.side)).size).toBeGreaterThanOrEqual(5);
    expect(topBatter.every((q) => isPlayer(q.side))).toBe(true);
  });

  test("prices every half and quarter, and a ladder of alternate lines around the main line", () => {
    const afl = quotesOf(upcoming.get("AFL")!);
    const periods = new Set(afl.map((q) => q.period));
    for (const period of ["GAME", "1H", "2H", "1Q", "2Q", "3Q", "4Q"]) expect(periods).toContain(period);
    const sportsbetLines = new Set(
      upcoming
        .get("AFL")!
        .books.find((b) => b.bookmaker === "sportsbet")!
        .quotes.filter((q) => q.period === "GAME" && q.betType === "SP" && q.entity === "HOME" && q.stat === "POINTS")
        .map((q) => q.line),
    );
    expect(sportsbetLines.size).toBe(9);
    const disposalLines = new Set(
      afl.filter((q) => q.stat === "DISPOSALS" && q.side === "OVER" && !q.mainLine).map((q) => q.line),
    );
    expect(disposalLines.size).toBeGreaterThan(4);
  });

  test("about 150 oddIDs per event on average, from 8 bookmakers", () => {
    const sides = [...upcoming.values()].map((event) => {
      const ids = new Set(
        quotesOf(event)
          .filter((q) => q.mainLine)
          .map((q) => `${q.stat}|${q.entity}|${q.period}|${q.betType}|${q.side}`),
      );
      return ids.size;
    });
    const mean = sides.reduce((a, b) => a + b, 0) / sides.length;
    expect(mean).toBeGreaterThan(120);
    expect(mean).toBeLessThan(260);
  });

  test("every player stat priced is in the results once the game is over, and one player scores the first try", () => {
    for (const league of LEAGUES) {
      const [event] = eventsBetween(SEED, league, at.getTime() - 7 * 86_400_000, at.getTime()) as ScheduledEvent[];
      const final = matchStateAt(SEED, event!, at.getTime());
      expect(final.phase === "final" || final.phase === "cancelled").toBe(true);
      if (final.phase === "cancelled") continue;
      const game = final.results.game ?? {};
      for (const team of [event!.home, event!.away]) {
        for (const player of team.players) {
          const stats = Object.keys(playerExpectations(SEED, event!, player));
          expect(stats.length).toBeGreaterThan(0);
          expect(Object.keys(game[playerIDIn(league.leagueID, player)] ?? {})).toEqual(expect.arrayContaining(stats));
        }
      }
      if (league.leagueID === "NRL") {
        const firsts = Object.values(game).filter((stats) => stats.firsttryscorer === 1);
        const tries = Object.values(game).reduce((sum, stats) => sum + (stats.tries ?? 0), 0);
        expect(firsts).toHaveLength(tries > 0 ? 1 : 0);
        expect(firsts[0]?.tries ?? 1).toBeGreaterThan(0);
      }
    }
  });

  test("the horizon lists events weeks ahead when asked", async () => {
    const week = await source({ bookmakers: ["sportsbet"] }).fetchSnapshot(at);
    const sixWeeks = await source({ bookmakers: ["sportsbet"], horizonDays: 42 }).fetchSnapshot(at);
    const count = (s: typeof week) => s.leagues.reduce((sum, l) => sum + l.events.length, 0);
    expect(count(sixWeeks)).toBeGreaterThan(count(week) * 3);
  }, 120_000);
});
