// The real-feed adapters against a real local HTTP server serving recorded fixtures in each API's
// documented shape: paging, the 404 last cursor, 429 back-off, failures mid-paging, every market
// kind, unknown entries counted, name matching with and without aliases, and the daily budget.
import { testMongoUri } from "@odds/local";
import { connectMongo, type MongoStore } from "@odds/platform";
import pino from "pino";
import { FIXTURE_KEYS, UpstreamFixtureServer } from "../../../test/support/upstream/fixture-server";
import { normaliseCycle } from "../src/domain/normalise";
import type { FeedEvent, FeedSnapshot, LeagueInfo } from "../src/sources/feed-source";
import type { UpstreamClientOptions } from "../src/sources/http/upstream-client";
import { matchAcrossSources, NameMatcher, normaliseName } from "../src/sources/matching/name-matcher";
import { SportsGameOddsSource } from "../src/sources/sportsgameodds/sgo-source";
import { TheOddsApiSource, type TheOddsApiConfig } from "../src/sources/the-odds-api/toa-source";
import { SpendStore } from "../src/store/spend-store";
import { GrpcCatalogueNames } from "../src/readers/catalogue-names";
import { GrpcCycleSink } from "../src/writers/grpc-sink";
import { startCatalogue, type CatalogueHarness } from "../../catalogue/test/harness";

const AFL: LeagueInfo = {
  leagueID: "AFL",
  sportID: "AUSSIE_RULES",
  sportName: "Australian Rules Football",
  sportShortName: "Aussie Rules",
  name: "Australian Football League",
  shortName: "AFL",
};
const NRL: LeagueInfo = {
  ...AFL,
  leagueID: "NRL",
  sportID: "RUGBY_LEAGUE",
  name: "NRL",
  shortName: "NRL",
  sportName: "Rugby League",
  sportShortName: "Rugby League",
};
const EPL: LeagueInfo = {
  ...AFL,
  leagueID: "EPL",
  sportID: "SOCCER",
  name: "Premier League",
  shortName: "EPL",
  sportName: "Soccer",
  sportShortName: "Soccer",
};

const AFL_EVENT_MARKETS = [
  "player_disposals",
  "player_goals_scored_over",
  "player_marks_over",
  "player_tackles_over",
  "player_kicks_over",
  "h2h_q1",
  "spreads_h1",
  "totals_q1",
  "alternate_spreads",
];

const http = (overrides: Partial<UpstreamClientOptions> = {}): UpstreamClientOptions => ({
  timeoutMs: 5_000,
  maxAttempts: 3,
  baseDelayMs: 10,
  maxDelayMs: 50,
  requestsPerMinute: 0,
  ...overrides,
});

let server: UpstreamFixtureServer;
/** The ingest store on the test FerretDB: plan spend is real state, kept across "restarts" below. */
let mongo: MongoStore;
let spendStore: SpendStore;
const mongoUri = testMongoUri("ingest_spend");
const storeLogger = pino({ level: "silent" });
beforeAll(async () => {
  mongo = await connectMongo(mongoUri, { appName: "ingest-test", logger: storeLogger });
});

/** What a restarted ingest process sees: its own connection to the same store. */
async function afterRestart<T>(use: (store: SpendStore) => Promise<T>): Promise<T> {
  const restarted = await connectMongo(mongoUri, { appName: "ingest-test-restarted", logger: storeLogger });
  try {
    return await use(new SpendStore(restarted.db));
  } finally {
    await restarted.close();
  }
}
afterAll(() => mongo.close());
beforeEach(async () => {
  server = await new UpstreamFixtureServer().start();
  // Each test starts on a day nothing was spent.
  await mongo.db.collection("plan_spend").deleteMany({});
  spendStore = new SpendStore(mongo.db);
});
afterEach(() => server.stop());

const sgoSource = (overrides: Partial<ConstructorParameters<typeof SportsGameOddsSource>[0]> = {}) =>
  new SportsGameOddsSource({
    id: "sgo",
    rank: 30,
    baseUrl: server.baseUrl,
    apiKey: FIXTURE_KEYS.sportsgameodds,
    leagues: [AFL],
    pageLimit: 2,
    objectsPerMonth: 0,
    spendLedger: spendStore,
    bookmakers: [],
    http: http(),
    ...overrides,
  });

const toaConfig = (overrides: Partial<TheOddsApiConfig> = {}): TheOddsApiConfig => ({
  id: "toa",
  rank: 20,
  baseUrl: server.baseUrl,
  apiKey: FIXTURE_KEYS.theOddsApi,
  regions: "au",
  bookmakers: { pointsbetau: "pointsbet_au", sportsbet: "sportsbet", tab: "tab", betfair_ex_au: "betfair_ex_au" },
  exchanges: ["betfair_ex_au"],
  leagues: [
    { ...AFL, sportKey: "aussierules_afl", eventMarkets: AFL_EVENT_MARKETS },
    {
      ...NRL,
      sportKey: "rugbyleague_nrl",
      eventMarkets: ["player_try_scorer_anytime", "alternate_totals", "h2h_3_way"],
    },
    { ...EPL, sportKey: "soccer_epl", eventMarkets: [] },
  ],
  markets: {
    periods: { q1: "1q", h1: "1h" },
    playerMarkets: {
      player_disposals: { stat: "disposals", betType: "ou" },
      player_goals_scored_over: { stat: "goals", betType: "ou" },
      player_marks_over: { stat: "marks", betType: "ou" },
      player_tackles_over: { stat: "tackles", betType: "ou" },
      player_try_scorer_anytime: { stat: "tries", betType: "yn" },
    },
  },
  dailyBudget: 10_000,
  spendLedger: spendStore,
  mainEveryMs: 0,
  eventPolling: [{ withinMs: 365 * 86_400_000, everyMs: 0 }],
  nameMatching: {
    kickoffToleranceMs: 30 * 60_000,
    teamAliases: { "Greater Western Sydney": "GREATER_WESTERN_SYDNEY_GIANTS_AFL" },
    playerAliases: { "Nick Daicos": "NICK_DAICOS_1_AFL" },
  },
  http: http(),
  ...overrides,
});

const events = (snapshot: FeedSnapshot): FeedEvent[] => snapshot.leagues.flatMap((l) => l.events);
const quoteKeys = (event: FeedEvent | undefined, bookmaker: string) =>
  (event?.books.find((b) => b.bookmaker === bookmaker)?.quotes ?? []).map(
    (q) =>
      `${q.stat}-${q.entity}-${q.period}-${q.betType}-${q.side}${q.line === undefined ? "" : `@${q.line}`}${q.mainLine ? "" : " alt"}`,
  );

describe("SportsGameOdds v2 adapter", () => {
  test("follows nextCursor to the end, taking a 404 on the last cursor as the end", async () => {
    const snapshot = await sgoSource().fetchSnapshot(new Date());
    expect(server.requestsTo(/\/v2\/events/).map((r) => [r.query.get("cursor"), r.status])).toEqual([
      [null, 200],
      ["page-1", 200],
      ["page-2", 404],
    ]);
    const request = server.requests[0];
    expect(request?.query.get("leagueID")).toBe("AFL");
    expect(request?.query.get("oddsAvailable")).toBe("true");
    expect(request?.query.get("includeAltLines")).toBe("true");
    expect(events(snapshot).map((e) => e.eventID)).toEqual([
      "n5cDs1Y4hB3uKqWd0aFl",
      "Qv8TnR2mZs0bLx7cYe4J",
      "Zk3PwQ9aLm1NbVc5Xr7T",
    ]);
    expect(snapshot.tally).toEqual({ malformed_event: 1, unknown_market: 1, malformed_price: 1 });
  });

  test("a league with no events (404 on the first page) is empty, not failed", async () => {
    const snapshot = await sgoSource({ leagues: [{ ...AFL, leagueID: "AFLW" }] }).fetchSnapshot(new Date());
    expect(snapshot.leagues.map((l) => [l.leagueID, l.events.length])).toEqual([["AFLW", 0]]);
    expect(snapshot.tally).toEqual({ empty_league_404: 1 });
  });

  test("maps status, teams, players, results and each byBookmaker entry to one quote", async () => {
    const snapshot = await sgoSource().fetchSnapshot(new Date());
    const [live, , final] = events(snapshot);
    expect(live?.state).toBe("SCHEDULED");
    expect(live?.home).toMatchObject({
      teamID: "RICHMOND_TIGERS_AFL",
      long: "Richmond Tigers",
      short: "RIC",
      primaryColor: "#FFD200",
    });
    expect(live?.players).toEqual([
      expect.objectContaining({ playerID: "DUSTIN_MARTIN_1_AFL", name: "Dustin Martin" }),
    ]);
    expect(quoteKeys(live, "sportsbet")).toEqual(
      expect.arrayContaining([
        "points-home-game-ml-home",
        "points-home-game-sp-home@-6.5",
        "points-home-game-sp-home@-12.5 alt",
        "points-home-game-sp-home@-0.5 alt",
        "points-all-game-ou-over@165.5",
        "disposals-DUSTIN_MARTIN_1_AFL-game-ou-over@24.5",
        "points-home-1q-ml-home",
      ]),
    );
    expect(quoteKeys(live, "tab")).toEqual(
      expect.arrayContaining([
        "goals-DUSTIN_MARTIN_1_AFL-game-yn-yes",
        "points-all-game-eo-odd",
        "margin-home-game-pick-1to39",
        "margin-home-game-pick-40plus",
      ]),
    );
    const sportsbet = live?.books.find((b) => b.bookmaker === "sportsbet");
    expect(sportsbet?.eventUrl).toContain("richmond-v-carlton");
    expect(sportsbet?.quotes[0]).toMatchObject({
      decimal: 1 + 100 / 150,
      deeplink: "https://www.sportsbet.com.au/betslip?sel=1",
    });
    const pinnacleUnder = live?.books.find((b) => b.bookmaker === "pinnacle")?.quotes.find((q) => q.side === "under");
    expect(pinnacleUnder?.suspended).toBe(true);
    expect(final?.state).toBe("FINAL");
    expect(final?.results).toEqual({
      game: { home: { points: 98, goals: 14 }, away: { points: 84, goals: 12 } },
      "1q": { home: { points: 30 }, away: { points: 18 } },
    });
    expect(final?.home.score).toBe(98);

    // Through normalisation: every mapped quote fits the oddID grammar.
    const cycle = normaliseCycle([{ sourceID: "sgo", rank: 30, snapshot }], { fairOddsBookmakers: ["pinnacle"] });
    expect(cycle.rejectedQuotes).toBe(0);
    const event = cycle.events.find((e) => e.eventID === "n5cDs1Y4hB3uKqWd0aFl");
    expect(event?.odds["points-home-game-sp-home"]?.altLines["-12.5"]?.sportsbet?.odds).toBe("+120");
    expect(event?.odds["disposals-DUSTIN_MARTIN_1_AFL-game-ou-over"]?.byBookmaker.sportsbet?.overUnder).toBe("24.5");
    // A pick-N band has no opposing side; each band is its own priced side.
    expect(event?.odds["margin-home-game-pick-40plus"]).toMatchObject({ betTypeID: "pick", sideID: "40plus" });
    expect(event?.odds["margin-home-game-pick-40plus"]?.opposingOddID).toBeUndefined();
    expect(event?.odds["margin-home-game-pick-40plus"]?.byBookmaker.tab?.odds).toBe("+300");
  });

  test("a 429 is retried after its Retry-After", async () => {
    server.inject({ match: /cursor=page-1/, status: 429, retryAfterSeconds: 1, times: 1 });
    const started = Date.now();
    const snapshot = await sgoSource().fetchSnapshot(new Date());
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requestsTo(/cursor=page-1/).map((r) => r.status)).toEqual([429, 200]);
    expect(events(snapshot)).toHaveLength(3);
  });

  test("a 500 mid-paging keeps the last good snapshot of the pages it could not fetch", async () => {
    const source = sgoSource();
    const first = new Date(Date.now() - 120_000);
    await source.fetchSnapshot(first);
    server.inject({ match: /cursor=page-1/, status: 500, times: 10 });
    const second = new Date();
    const snapshot = await source.fetchSnapshot(second);
    expect(server.requestsTo(/cursor=page-1/).filter((r) => r.status === 500)).toHaveLength(3);
    expect(snapshot.tally).toMatchObject({ league_fetch_failed: 1 });
    // No event lost: the fresh page at the new instant, the unfetched one as last seen (and when).
    const byWrite = snapshot.leagues.map((l) => [l.lastWriteAt.getTime(), l.events.map((e) => e.eventID).sort()]);
    expect(byWrite).toEqual([
      [first.getTime(), ["Zk3PwQ9aLm1NbVc5Xr7T"]],
      [second.getTime(), ["Qv8TnR2mZs0bLx7cYe4J", "n5cDs1Y4hB3uKqWd0aFl"]],
    ]);
  });

  test("a failure on the first page keeps the whole league as last fetched; the plan's monthly objects are respected", async () => {
    const source = sgoSource({ objectsPerMonth: 4 });
    const first = new Date(Date.now() - 120_000);
    await source.fetchSnapshot(first);
    expect(source.objectsUsed).toBe(4);
    // The plan is used up: no request, the league stays as it was (and goes stale with its old write time).
    const requestsBefore = server.requests.length;
    const snapshot = await source.fetchSnapshot(new Date());
    expect(server.requests.length).toBe(requestsBefore);
    expect(snapshot.leagues.map((l) => l.lastWriteAt.getTime())).toEqual([first.getTime()]);
    expect(events(snapshot)).toHaveLength(3);
  });

  test("the plan's monthly objects survive a restart: a restarted source asks for nothing once they are used", async () => {
    await sgoSource({ objectsPerMonth: 4 }).fetchSnapshot(new Date(Date.now() - 120_000));
    // Each page asks for no more than the month has left.
    expect(server.requestsTo(/\/v2\/events/).map((r) => r.query.get("limit"))).toEqual(["2", "2"]);
    const requestsBefore = server.requests.length;
    await afterRestart(async (store) => {
      const restarted = sgoSource({ objectsPerMonth: 4, spendLedger: store });
      await expect(restarted.fetchSnapshot(new Date())).rejects.toThrow(/4 objects this month already used/);
      expect(restarted.objectsUsed).toBe(4);
    });
    expect(server.requests.length).toBe(requestsBefore);
  });

  test("a source with a monthly limit cannot be built without the spend store", () => {
    expect(() => sgoSource({ objectsPerMonth: 5, spendLedger: undefined })).toThrow(/ingest store/);
  });

  test("with nothing kept yet, a failing source fails the fetch (its leagues go stale)", async () => {
    server.inject({ match: /\/v2\/events/, status: 503, times: 10 });
    await expect(sgoSource().fetchSnapshot(new Date())).rejects.toThrow(/503/);
  });
});

describe("The Odds API v4 adapter", () => {
  async function matchedCycle(config: TheOddsApiConfig = toaConfig()) {
    const sgo = sgoSource();
    const toa = new TheOddsApiSource(config);
    const at = new Date();
    const snapshots = await matchAcrossSources(
      new NameMatcher(),
      [
        { sourceID: "sgo", rank: 30, snapshot: await sgo.fetchSnapshot(at) },
        { sourceID: "toa", rank: 20, snapshot: await toa.fetchSnapshot(at), matching: toa.nameMatching },
      ],
      at.getTime(),
    );
    return { toa, snapshots, cycle: normaliseCycle(snapshots, { fairOddsBookmakers: ["pinnacle", "betfair_ex_au"] }) };
  }

  test("asks for the documented parameters", async () => {
    await new TheOddsApiSource(toaConfig()).fetchSnapshot(new Date());
    const main = server.requestsTo(/\/v4\/sports\/aussierules_afl\/odds/)[0];
    expect(Object.fromEntries(main?.query ?? [])).toMatchObject({
      regions: "au",
      markets: "h2h,spreads,totals,h2h_lay",
      oddsFormat: "american",
      includeLinks: "true",
      includeSids: "true",
      includeBetLimits: "true",
    });
    expect(server.requestsTo(/\/events\/8d6f0c0c5a6a1e1f2b3c4d5e6f708192\/odds/)[0]?.query.get("markets")).toBe(
      AFL_EVENT_MARKETS.join(","),
    );
  });

  test("maps every market kind to the oddID grammar and counts what it does not know", async () => {
    const { snapshots, cycle } = await matchedCycle();
    const toa = snapshots[1]?.snapshot as FeedSnapshot;
    // player_kicks_over is asked for but not in the table; TAB's h2h names a third team.
    expect(toa.tally).toEqual({
      unknown_market: 1,
      unknown_outcome: 1,
      unmatched_event: 3,
      unmatched_team: 6,
      unmatched_player: 2,
    });
    const richmond = cycle.events.find((e) => e.eventID === "n5cDs1Y4hB3uKqWd0aFl");
    const points = (oddID: string) => richmond?.odds[oddID]?.byBookmaker.pointsbet_au;
    expect(points("points-home-game-ml-home")).toMatchObject({
      odds: "-155",
      deeplink: "https://pointsbet.com.au/bet?o=1",
    });
    expect(points("points-home-game-sp-home")?.spread).toBe("-6.5");
    expect(points("points-all-game-ou-over")?.overUnder).toBe("165.5");
    expect(points("disposals-DUSTIN_MARTIN_1_AFL-game-ou-over")?.overUnder).toBe("24.5");
    expect(points("goals-DUSTIN_MARTIN_1_AFL-game-ou-over")?.overUnder).toBe("1.5");
    expect(points("marks-DUSTIN_MARTIN_1_AFL-game-ou-over")?.odds).toBe("-120");
    expect(points("tackles-DUSTIN_MARTIN_1_AFL-game-ou-over")?.odds).toBe("+105");
    expect(points("points-home-1q-ml-home")?.odds).toBe("-135");
    expect(points("points-away-1h-sp-away")?.spread).toBe("+3.5");
    expect(points("points-all-1q-ou-under")?.overUnder).toBe("42.5");
    expect(richmond?.odds["points-home-game-sp-home"]?.altLines["-15.5"]?.pointsbet_au?.odds).toBe("+150");
    expect(richmond?.links.bookmakers.pointsbet_au).toBe("https://pointsbet.com.au/sports/aussie-rules/AFL/123");

    // The exchange: back price, lay price (h2h_lay) and the stake available (bet_limit).
    const exchange = cycle.observations.find(
      (o) => o.eventID === "n5cDs1Y4hB3uKqWd0aFl" && o.bookmakerID === "betfair_ex_au",
    );
    expect(exchange?.quotes.find((q) => q.oddID === "points-home-game-ml-home")).toMatchObject({
      decimalOdds: 1 + 100 / 150,
      layOdds: 1 + 100 / 145,
      maxStake: 1520.5,
    });

    const nrl = cycle.events.find((e) => e.leagueID === "NRL");
    expect(nrl?.odds["tries-NATHAN_CLEARY_1_NRL-game-yn-yes"]?.byBookmaker.sportsbet?.odds).toBe("+180");
    expect(nrl?.odds["points-all-game-ou-over"]?.byBookmaker.sportsbet?.overUnder).toBe("38.5");
    // alternate_totals: alternate lines of the total; h2h_3_way: the three-way moneyline with its draw.
    expect(nrl?.odds["points-all-game-ou-over"]?.altLines["44.5"]?.sportsbet?.odds).toBe("+150");
    expect(nrl?.odds["points-all-game-ou-under"]?.altLines["32.5"]?.sportsbet?.odds).toBe("+160");
    expect(nrl?.odds["points-home-game-ml3way-home"]?.byBookmaker.sportsbet?.odds).toBe("-130");
    expect(nrl?.odds["points-all-game-ml3way-draw"]?.byBookmaker.sportsbet?.odds).toBe("+2000");
    const epl = cycle.events.find((e) => e.leagueID === "EPL");
    expect(Object.keys(epl?.odds ?? {}).sort()).toEqual([
      "points-all-game-ml3way-draw",
      "points-away-game-ml3way-away",
      "points-home-game-ml3way-home",
    ]);
    expect(cycle.rejectedQuotes).toBe(0);
  });

  test("events, teams and players are matched by name, kickoff and league; aliases cover the names that differ", async () => {
    const { cycle } = await matchedCycle();
    // Richmond v Carlton: kickoff 3 minutes apart, names equal -> the SportsGameOdds event, both sources' books.
    const richmond = cycle.events.find((e) => e.eventID === "n5cDs1Y4hB3uKqWd0aFl");
    expect(richmond?.info.bookmakersPresent).toEqual(
      expect.arrayContaining(["pointsbet_au", "sportsbet", "tab", "pinnacle"]),
    );
    // Collingwood v "Greater Western Sydney": only the alias finds the Giants; "Nick Daicos" is "Nicholas Daicos" by alias.
    const collingwood = cycle.events.find((e) => e.eventID === "Qv8TnR2mZs0bLx7cYe4J");
    expect(collingwood?.odds["points-away-game-ml-away"]?.byBookmaker.pointsbet_au?.odds).toBe("+170");
    expect(collingwood?.odds["disposals-NICK_DAICOS_1_AFL-game-ou-over"]?.byBookmaker.pointsbet_au?.overUnder).toBe(
      "29.5",
    );
    expect(cycle.events.some((e) => e.eventID.startsWith("toa_1a2b"))).toBe(false);
    // Essendon v Hawthorn is only at The Odds API: kept under its own ID.
    expect(cycle.events.some((e) => e.eventID === "toa_ffeeddccbbaa99887766554433221100")).toBe(true);

    const { cycle: noAliases, snapshots } = await matchedCycle(
      toaConfig({ nameMatching: { kickoffToleranceMs: 30 * 60_000, teamAliases: {}, playerAliases: {} } }),
    );
    expect(noAliases.events.some((e) => e.eventID === "toa_1a2b3c4d5e6f708192a3b4c5d6e7f801")).toBe(true);
    expect(noAliases.events.find((e) => e.eventID === "Qv8TnR2mZs0bLx7cYe4J")?.info.bookmakersPresent).not.toContain(
      "pointsbet_au",
    );
    expect(snapshots[1]?.snapshot.tally).toMatchObject({
      unmatched_team: expect.any(Number),
      unmatched_event: expect.any(Number),
    });

    // Outside the kickoff tolerance the same teams are another event.
    const { cycle: strict } = await matchedCycle(
      toaConfig({ nameMatching: { kickoffToleranceMs: 60_000, teamAliases: {}, playerAliases: {} } }),
    );
    expect(strict.events.some((e) => e.eventID === "toa_8d6f0c0c5a6a1e1f2b3c4d5e6f708192")).toBe(true);
  });

  test("while an ID-carrying source has failed and its league was never learned, the named events are held back", async () => {
    const toa = new TheOddsApiSource(toaConfig());
    const at = new Date();
    const snapshot = await toa.fetchSnapshot(at);
    const matcher = new NameMatcher();
    const [held] = await matchAcrossSources(matcher, [{ snapshot, matching: toa.nameMatching }], at.getTime(), true);
    expect(held?.snapshot.leagues).toEqual([]);
    expect(held?.snapshot.tally).toMatchObject({ held_until_matched: 5 });
    // Once the ID-carrying source has been seen, a later failure no longer holds its learned leagues back.
    await matchAcrossSources(
      matcher,
      [{ snapshot: await sgoSource().fetchSnapshot(at) }, { snapshot, matching: toa.nameMatching }],
      at.getTime(),
    );
    const [again] = await matchAcrossSources(matcher, [{ snapshot, matching: toa.nameMatching }], at.getTime(), true);
    expect(again?.snapshot.leagues.map((l) => l.leagueID)).toEqual(["AFL"]);
    expect(events(again?.snapshot as FeedSnapshot).map((e) => e.eventID)).toContain("n5cDs1Y4hB3uKqWd0aFl");
  });

  test("normalised names drop accents, case, punctuation and club words", () => {
    expect(normaliseName("Brighton & Hove Albion FC")).toBe(normaliseName("brighton and hove albion"));
    expect(normaliseName("Atlético Madrid")).toBe("atletico madrid");
  });

  test("spends at most the daily budget, dropping far-off events before near ones", async () => {
    // Main AFL markets cost 4 credits; an event's request at most 9 (it is billed by the markets that
    // come back). With 36 a day: the main request, the event in 2 hours and the one in 26 hours fit;
    // the one in 6 days would eat into what the near events need.
    const toa = new TheOddsApiSource(
      toaConfig({ dailyBudget: 36, leagues: [toaConfig().leagues[0] as TheOddsApiConfig["leagues"][number]] }),
    );
    const snapshot = await toa.fetchSnapshot(new Date());
    expect(server.requestsTo(/8d6f0c0c5a6a1e1f2b3c4d5e6f708192\/odds/)).toHaveLength(1);
    expect(server.requestsTo(/1a2b3c4d5e6f708192a3b4c5d6e7f801\/odds/)).toHaveLength(1);
    expect(server.requestsTo(/ffeeddccbbaa99887766554433221100\/odds/)).toHaveLength(0);
    expect(snapshot.tally).toMatchObject({ budget_skipped_request: 1 });
    expect(server.creditsUsed).toBe(4 + 9 + 1);

    // Next cycles: the budget is exhausted before anything else is asked; what was fetched is kept.
    for (let i = 0; i < 3; i++) await toa.fetchSnapshot(new Date());
    expect(server.creditsUsed).toBeLessThanOrEqual(36);
    expect(toa.budget.spent).toBe(server.creditsUsed);
    expect(server.requestsTo(/ffeeddccbbaa99887766554433221100\/odds/)).toHaveLength(0);
    const after = await toa.fetchSnapshot(new Date());
    expect(events(after)).toHaveLength(3);
  });

  test("a restart mid-day spends only what the day has left: the budget and what was spent are in the store", async () => {
    const config = toaConfig({
      dailyBudget: 36,
      leagues: [toaConfig().leagues[0] as TheOddsApiConfig["leagues"][number]],
    });
    await new TheOddsApiSource(config).fetchSnapshot(new Date());
    expect(server.creditsUsed).toBe(4 + 9 + 1);
    // A new process, the same day: it reads what was spent and keeps within what is left.
    const spentAfterRestart = await afterRestart(async (store) => {
      const restarted = new TheOddsApiSource({ ...config, spendLedger: store });
      for (let i = 0; i < 4; i++) await restarted.fetchSnapshot(new Date());
      return restarted.budget.spent;
    });
    expect(server.creditsUsed).toBeGreaterThan(14);
    expect(server.creditsUsed).toBeLessThanOrEqual(36);
    expect(spentAfterRestart).toBe(server.creditsUsed);
    expect(await spendStore.read("toa", new Date().toISOString().slice(0, 10))).toEqual({
      spent: server.creditsUsed,
      planRemaining: server.creditsRemaining,
    });
  });

  test("a request that fails without an answer keeps its reserved cost; one refused with an answer costs what it says", async () => {
    const config = toaConfig({ leagues: [toaConfig().leagues[2] as TheOddsApiConfig["leagues"][number]] });
    const toa = new TheOddsApiSource({ ...config, http: http({ maxAttempts: 1 }) });
    server.inject({ match: /soccer_epl\/odds/, status: 500, times: 1 });
    await toa.fetchSnapshot(new Date());
    expect(toa.budget.spent).toBe(0);
    // No server at all: the request may have been billed before the connection broke, so it stays counted.
    const unreachable = new TheOddsApiSource({
      ...config,
      baseUrl: "http://127.0.0.1:1/",
      http: http({ maxAttempts: 1 }),
    });
    const snapshot = await unreachable.fetchSnapshot(new Date());
    expect(snapshot.tally).toMatchObject({ request_failed: 1 });
    expect(unreachable.budget.spent).toBe(4);
  });

  test("the plan's remaining credits stop requests; a refused request keeps the last good answer", async () => {
    const toa = new TheOddsApiSource(
      toaConfig({ leagues: [toaConfig().leagues[2] as TheOddsApiConfig["leagues"][number]] }),
    );
    const first = new Date(Date.now() - 60_000);
    await toa.fetchSnapshot(first);
    server.creditsRemaining = 0;
    const snapshot = await toa.fetchSnapshot(new Date());
    // x-requests-remaining said 6 credits left before; the answer now is 429 (quota), retried, then given up.
    expect(snapshot.tally).toMatchObject({ request_failed: 1 });
    expect(snapshot.leagues.map((l) => l.lastWriteAt.getTime())).toEqual([first.getTime()]);
    expect(events(snapshot).map((e) => e.eventID)).toEqual(["toa_99aa88bb77cc66dd55ee44ff33001122"]);
    // Once the headers report nothing left, no further request is made at all.
    const before = server.requests.length;
    await toa.fetchSnapshot(new Date());
    expect(server.requests.length).toBe(before + 0);
  });
});

describe("names resolved through the persisted catalogue (a real catalogue service and store)", () => {
  let catalogueService: CatalogueHarness;
  let sink: GrpcCycleSink;
  let readers: GrpcCatalogueNames[] = [];
  // Each test on a catalogue of its own (a new database), so none sees another's writes.
  beforeEach(async () => {
    catalogueService = await startCatalogue();
    const addr = `127.0.0.1:${catalogueService.server.port}`;
    sink = new GrpcCycleSink({ eventsAddr: addr, historyAddr: addr, catalogueAddr: addr, deadlineMs: 10_000 });
  });
  afterEach(async () => {
    for (const reader of readers) reader.close();
    readers = [];
    sink.close();
    await catalogueService.stop();
  });

  /** A freshly started ingest's matcher: nothing learned, the catalogue service to read from. */
  const restartedMatcher = (addr = `127.0.0.1:${catalogueService.server.port}`) => {
    const reader = new GrpcCatalogueNames({ catalogueAddr: addr, deadlineMs: 2_000 });
    readers.push(reader);
    return new NameMatcher(reader);
  };
  const fair = { fairOddsBookmakers: ["pinnacle", "betfair_ex_au"] };

  /** One cycle of The Odds API alone through a matcher, its catalogue written as a cycle would. */
  async function namedCycle(matcher: NameMatcher, config: TheOddsApiConfig, cycleID: string) {
    const toa = new TheOddsApiSource(config);
    const at = new Date();
    const [matched] = await matchAcrossSources(
      matcher,
      [{ sourceID: "toa", rank: 20, snapshot: await toa.fetchSnapshot(at), matching: toa.nameMatching }],
      at.getTime(),
    );
    const cycle = normaliseCycle(matched ? [matched] : [], fair);
    await sink.applyCatalogue(cycleID, cycle.catalogue);
    return { cycle, tally: matched?.snapshot.tally ?? {} };
  }

  const teamsOf = (cycle: ReturnType<typeof normaliseCycle>) =>
    Object.fromEntries(cycle.events.map((e) => [e.eventID, [e.home.teamID, e.away.teamID]]));
  const playersOf = (cycle: ReturnType<typeof normaliseCycle>) =>
    Object.fromEntries(cycle.events.flatMap((e) => Object.values(e.players).map((p) => [p.playerID, p.name])));

  test("after a restart, with no ID-carrying source seen yet, names resolve to the catalogue's IDs; aliases first", async () => {
    // What SportsGameOdds wrote to the catalogue before the restart.
    const sgo = await sgoSource().fetchSnapshot(new Date());
    await sink.applyCatalogue(
      "cycle-sgo",
      normaliseCycle([{ sourceID: "sgo", rank: 30, snapshot: sgo }], fair).catalogue,
    );

    const { cycle, tally } = await namedCycle(restartedMatcher(), toaConfig(), "cycle-toa-1");
    expect(teamsOf(cycle)).toMatchObject({
      toa_8d6f0c0c5a6a1e1f2b3c4d5e6f708192: ["RICHMOND_TIGERS_AFL", "CARLTON_BLUES_AFL"],
      // "Greater Western Sydney" only through the alias, completed from the catalogue.
      toa_1a2b3c4d5e6f708192a3b4c5d6e7f801: ["COLLINGWOOD_MAGPIES_AFL", "GREATER_WESTERN_SYDNEY_GIANTS_AFL"],
    });
    const giants = cycle.catalogue.teams.find((t) => t.teamID === "GREATER_WESTERN_SYDNEY_GIANTS_AFL");
    expect(giants?.names).toEqual({ long: "Greater Western Sydney Giants", medium: "GWS Giants", short: "GWS" });
    // The catalogue's own records, not names rebuilt from The Odds API's: "Nick Daicos" is the catalogue's Nicholas.
    expect(playersOf(cycle)).toMatchObject({
      NICK_DAICOS_1_AFL: "Nicholas Daicos",
      DUSTIN_MARTIN_1_AFL: "Dustin Martin",
    });
    // Only The Odds API carries Essendon v Hawthorn, the NRL and the EPL match: 6 teams no catalogue holds yet.
    expect(tally.unmatched_team).toBe(6);
  });

  test("without aliases the names that differ keep provisional IDs, and a restart gives them the same IDs again", async () => {
    const sgo = await sgoSource().fetchSnapshot(new Date());
    await sink.applyCatalogue(
      "cycle-sgo",
      normaliseCycle([{ sourceID: "sgo", rank: 30, snapshot: sgo }], fair).catalogue,
    );
    const noAliases = toaConfig({
      nameMatching: { kickoffToleranceMs: 30 * 60_000, teamAliases: {}, playerAliases: {} },
    });

    const first = await namedCycle(restartedMatcher(), noAliases, "cycle-toa-2");
    expect(teamsOf(first.cycle).toa_1a2b3c4d5e6f708192a3b4c5d6e7f801).toEqual([
      "COLLINGWOOD_MAGPIES_AFL",
      "GREATER_WESTERN_SYDNEY_AFL",
    ]);
    expect(playersOf(first.cycle).NICK_DAICOS_1_AFL).toBe("Nick Daicos");
    // "Greater Western Sydney" besides the 6 teams only The Odds API carries.
    expect(first.tally).toMatchObject({ unmatched_team: 7, unmatched_player: expect.any(Number) });

    // Another restart: every event, team and player gets the ID it had, now read back from the catalogue.
    const again = await namedCycle(restartedMatcher(), noAliases, "cycle-toa-3");
    expect(teamsOf(again.cycle)).toEqual(teamsOf(first.cycle));
    expect(playersOf(again.cycle)).toEqual(playersOf(first.cycle));
    expect(again.tally.unmatched_team ?? 0).toBe(0);
  });

  test("a league whose catalogue was never read (the catalogue service down at start) is held back, not given new IDs", async () => {
    const toa = new TheOddsApiSource(toaConfig());
    const at = new Date();
    const snapshot = await toa.fetchSnapshot(at);
    const failures: string[] = [];
    const [held] = await matchAcrossSources(
      restartedMatcher("127.0.0.1:1"),
      [{ snapshot, matching: toa.nameMatching }],
      at.getTime(),
      false,
      (leagueID) => failures.push(leagueID),
    );
    expect(failures.sort()).toEqual(["AFL", "EPL", "NRL"]);
    expect(held?.snapshot.leagues).toEqual([]);
    expect(held?.snapshot.tally).toMatchObject({ held_until_matched: 5 });
  });
});
