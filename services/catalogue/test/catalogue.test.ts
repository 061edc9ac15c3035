import { status } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import { catalogue } from "@odds/proto";
import { EVENTS, eventMarkets, firstCycle, mainAfl } from "./fixtures";
import { normalizeEventState } from "../src/domain/activity";
import { toCycle } from "../src/rpc";
import { callers, startCatalogue, type CatalogueHarness, type ListMethod } from "./harness";

const everything = callers.everything;

describe("catalogue service against a real store", () => {
  let harness: CatalogueHarness;

  beforeAll(async () => {
    harness = await startCatalogue();
    await harness.apply(firstCycle());
  });

  afterAll(async () => {
    await harness.stop();
  });

  const list = (method: ListMethod, request: object) => harness.list(method, request);
  const ids = (items: any[], field: string) => items.map((item) => item[field]);
  const markets = async (request: Partial<catalogue.ListMarketsRequest>, caller = everything) =>
    ids((await list("listMarkets", { caller, ...request })).items, "oddID");

  async function expectInvalid(method: ListMethod, request: object, parameter: string): Promise<void> {
    await expect(list(method, request)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringMatching(new RegExp(`^${parameter}: `)),
    });
  }

  async function allPages(method: ListMethod, request: object, limit: number): Promise<any[]> {
    const items: any[] = [];
    let cursor = "";
    for (let page = 0; page < 100; page++) {
      const result = await list(method, { ...request, limit, cursor });
      expect(result.items.length).toBeLessThanOrEqual(limit);
      items.push(...result.items);
      if (result.nextCursor === "") return items;
      cursor = result.nextCursor;
    }
    throw new Error("paging did not end");
  }

  describe("sports and leagues", () => {
    test("sports list every sport with activeEvents, and enabled reflects the plan without hiding rows", async () => {
      const all = (await list("listSports", { caller: everything })).items;
      expect(all).toEqual([
        { sportID: "AUSSIE_RULES", name: "Aussie Rules", shortName: "AFL", enabled: true, activeEvents: 2 },
        { sportID: "RUGBY_LEAGUE", name: "Rugby League", shortName: "RL", enabled: true, activeEvents: 1 },
        { sportID: "SOCCER", name: "Soccer", shortName: "SOC", enabled: true, activeEvents: 1 },
      ]);
      const afl = (await list("listSports", { caller: callers.aflOnly })).items;
      expect(afl.map((s) => [s.sportID, s.enabled])).toEqual([
        ["AUSSIE_RULES", true],
        ["RUGBY_LEAGUE", false],
        ["SOCCER", false],
      ]);
    });

    test("sports never fail: a request without a caller sees every sport disabled", async () => {
      const items = (await list("listSports", {})).items;
      expect(items).toHaveLength(3);
      expect(items.every((s) => s.enabled === false)).toBe(true);
    });

    test("leagues carry sportID and the sport fields, filter by sportID and leagueID, enabled by league plan", async () => {
      const all = (await list("listLeagues", { caller: callers.nrlOnly })).items;
      expect(all).toEqual([
        {
          leagueID: "AFL",
          sportID: "AUSSIE_RULES",
          name: "Australian Football League",
          shortName: "AFL",
          enabled: false,
          activeEvents: 2,
        },
        {
          leagueID: "EPL",
          sportID: "SOCCER",
          name: "English Premier League",
          shortName: "EPL",
          enabled: false,
          activeEvents: 1,
        },
        {
          leagueID: "NRL",
          sportID: "RUGBY_LEAGUE",
          name: "National Rugby League",
          shortName: "NRL",
          enabled: true,
          activeEvents: 1,
        },
      ]);
      const bySport = await list("listLeagues", { caller: everything, sportIds: ["SOCCER", "RUGBY_LEAGUE"] });
      expect(ids(bySport.items, "leagueID")).toEqual(["EPL", "NRL"]);
      const byLeague = await list("listLeagues", { caller: everything, leagueIds: ["AFL"] });
      expect(ids(byLeague.items, "leagueID")).toEqual(["AFL"]);
      const both = await list("listLeagues", { caller: everything, sportIds: ["SOCCER"], leagueIds: ["AFL"] });
      expect(both.items).toEqual([]);
    });
  });

  describe("teams", () => {
    test("a team has names, the colours that are known and its statEntityID", async () => {
      const { items } = await list("listTeams", {
        caller: everything,
        teamIds: ["SYDNEY_SWANS_AFL", "GEELONG_CATS_AFL"],
      });
      expect(items).toEqual([
        {
          teamID: "GEELONG_CATS_AFL",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          names: { long: "Geelong Cats", medium: "Geelong", short: "GEE" },
          colors: {},
          statEntityID: "away",
        },
        {
          teamID: "SYDNEY_SWANS_AFL",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          names: { long: "Sydney Swans", medium: "Sydney", short: "SYD" },
          colors: { primary: "#112233", primaryContrast: "#ffffff", secondary: "#ffffff" },
          statEntityID: "home",
        },
      ]);
    });

    test("teams filter by sportID, leagueID and teamID lists", async () => {
      expect(ids((await list("listTeams", { caller: everything, sportIds: ["SOCCER"] })).items, "teamID")).toEqual([
        "ARSENAL_EPL",
        "CHELSEA_EPL",
      ]);
      expect(ids((await list("listTeams", { caller: everything, leagueIds: ["NRL", "EPL"] })).items, "teamID")).toEqual(
        ["ARSENAL_EPL", "CHELSEA_EPL", "MELBOURNE_STORM_NRL", "PENRITH_PANTHERS_NRL"],
      );
      expect(
        ids((await list("listTeams", { caller: everything, teamIds: ["ARSENAL_EPL", "NOPE"] })).items, "teamID"),
      ).toEqual(["ARSENAL_EPL"]);
    });

    test("teams are limited to the leagues the plan can read", async () => {
      const afl = ids((await list("listTeams", { caller: callers.aflOnly })).items, "leagueID");
      expect(new Set(afl)).toEqual(new Set(["AFL"]));
      expect(afl).toHaveLength(4);
      const nrl = await list("listTeams", { caller: callers.nrlOnly, leagueIds: ["AFL", "NRL"] });
      expect(ids(nrl.items, "teamID")).toEqual(["MELBOURNE_STORM_NRL", "PENRITH_PANTHERS_NRL"]);
    });

    test("paging teams to the end returns exactly the unpaged list, with no cursor on the last page", async () => {
      const unpaged = (await list("listTeams", { caller: everything })).items;
      expect(unpaged).toHaveLength(8);
      expect(await allPages("listTeams", { caller: everything }, 3)).toEqual(unpaged);
      const exact = await list("listTeams", { caller: everything, limit: 8 });
      expect(exact.nextCursor).toBe("");
    });

    test("invalid limit and cursor values are rejected naming the parameter", async () => {
      await expectInvalid("listTeams", { caller: everything, limit: 251 }, "limit");
      await expectInvalid("listTeams", { caller: everything, cursor: "not a cursor!" }, "cursor");
      const first = await list("listTeams", { caller: everything, limit: 2 });
      await expectInvalid("listTeams", { caller: everything, leagueIds: ["AFL"], cursor: first.nextCursor }, "cursor");
      await expectInvalid("listPlayers", { caller: everything, cursor: first.nextCursor }, "cursor");
    });
  });

  describe("players", () => {
    test("players carry names, and position and jerseyNumber only where the source carries them", async () => {
      const { items } = await list("listPlayers", { caller: everything, eventIds: [EVENTS.swansCats] });
      expect(items).toEqual([
        {
          playerID: "ISAAC_HEENEY_1_AFL",
          teamID: "SYDNEY_SWANS_AFL",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          name: "Isaac Heeney",
          firstName: "Isaac",
          lastName: "Heeney",
          position: "Midfielder",
          jerseyNumber: 5,
        },
        {
          playerID: "JEREMY_CAMERON_1_AFL",
          teamID: "GEELONG_CATS_AFL",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          name: "Jeremy Cameron",
          firstName: "Jeremy",
          lastName: "Cameron",
        },
      ]);
    });

    test("players filter by teamID, playerID and leagueID, within the plan's leagues", async () => {
      const byTeam = await list("listPlayers", { caller: everything, teamIds: ["CARLTON_BLUES_AFL"] });
      expect(ids(byTeam.items, "playerID")).toEqual(["PATRICK_CRIPPS_1_AFL"]);
      const byPlayer = await list("listPlayers", { caller: everything, playerIds: ["NATHAN_CLEARY_1_NRL"] });
      expect(ids(byPlayer.items, "playerID")).toEqual(["NATHAN_CLEARY_1_NRL"]);
      const byLeague = await list("listPlayers", { caller: everything, leagueIds: ["NRL"] });
      expect(ids(byLeague.items, "playerID")).toEqual(["NATHAN_CLEARY_1_NRL"]);
      const hidden = await list("listPlayers", { caller: callers.nrlOnly, playerIds: ["ISAAC_HEENEY_1_AFL"] });
      expect(hidden.items).toEqual([]);
    });

    test("paging players one by one returns the unpaged list; limit over 250 is rejected", async () => {
      const unpaged = (await list("listPlayers", { caller: everything })).items;
      expect(unpaged).toHaveLength(4);
      expect(await allPages("listPlayers", { caller: everything }, 1)).toEqual(unpaged);
      await expectInvalid("listPlayers", { caller: everything, limit: 1000 }, "limit");
    });
  });

  describe("stats", () => {
    test("a stat has supportedLevels, displays, supportedSports, and only points is the score stat", async () => {
      const { items } = await list("listStats", { caller: everything });
      expect(ids(items, "statID")).toEqual(["disposals", "points", "tries"]);
      expect(items[1]).toEqual({
        statID: "points",
        supportedLevels: { all: true, team: true, player: false },
        displays: { short: "PTS", long: "Points" },
        isScoreStat: true,
        supportedSports: { AUSSIE_RULES: true, RUGBY_LEAGUE: true, SOCCER: true },
      });
      expect(items.filter((s) => s.isScoreStat)).toHaveLength(1);
    });

    test("stats filter by statID, sportID and statLevel (all by default)", async () => {
      const stat = (request: object) =>
        list("listStats", { caller: everything, ...request }).then((r) => ids(r.items, "statID"));
      expect(await stat({ statIds: ["tries"] })).toEqual(["tries"]);
      expect(await stat({ sportIds: ["RUGBY_LEAGUE"] })).toEqual(["points", "tries"]);
      expect(await stat({ sportIds: ["RUGBY_LEAGUE"], statLevel: "player" })).toEqual(["tries"]);
      expect(await stat({ sportIds: ["AUSSIE_RULES"], statLevel: "team" })).toEqual(["points"]);
      expect(await stat({ sportIds: ["AUSSIE_RULES"], statLevel: "all" })).toEqual(["disposals", "points"]);
      await expectInvalid("listStats", { caller: everything, statLevel: "league" }, "statLevel");
    });
  });

  describe("markets", () => {
    test("a market has its derived fields, activeEvents across leagues, support and bookmakers", async () => {
      const { items } = await list("listMarkets", { caller: everything, oddIds: ["points-home-game-ml-home"] });
      expect(items).toEqual([
        {
          oddID: "points-home-game-ml-home",
          statID: "points",
          statEntityID: "home",
          periodID: "game",
          betTypeID: "ml",
          sideID: "home",
          marketGroupID: "points-all-game-ml",
          marketGroupName: "Points Moneyline",
          isMainMarket: true,
          isMainDerivative: false,
          isSubPeriod: false,
          isProp: false,
          isSupported: true,
          activeEvents: 3,
          support: { AFL: { sportsbet: true, tab: true }, NRL: { neds: true, tab: true } },
          bookmakers: ["neds", "sportsbet", "tab"],
        },
      ]);
      const prop = (
        await list("listMarkets", { caller: everything, oddIds: ["disposals-ISAAC_HEENEY_1_AFL-game-ou-over"] })
      ).items[0];
      expect(prop).toMatchObject({
        playerID: "ISAAC_HEENEY_1_AFL",
        propType: "player_prop",
        isProp: true,
        activeEvents: 1,
      });
      expect(prop.marketGroupName).toBe("Isaac Heeney Disposals Over/Under");
    });

    test("isSupported defaults to true; false lists markets no bookmaker prices", async () => {
      const omitted = await markets({});
      expect(omitted).toHaveLength(16);
      expect(await markets({ isSupported: true })).toEqual(omitted);
      expect(await markets({ isSupported: false })).toEqual(["goals-all-game-eo-odd"]);
    });

    test("isMainMarket true, false and omitted", async () => {
      expect(await markets({ isMainMarket: true })).toEqual([
        "points-all-game-ou-over",
        "points-all-game-ou-under",
        "points-away-game-ml-away",
        "points-away-game-sp-away",
        "points-home-game-ml-home",
        "points-home-game-sp-home",
      ]);
      expect(await markets({ isMainMarket: false })).toHaveLength(10);
      expect(await markets({ isMainMarket: undefined })).toHaveLength(16);
    });

    test("isSubPeriod true, false and omitted", async () => {
      expect(await markets({ isSubPeriod: true })).toEqual(["points-all-1q-ou-over", "points-all-1q-ou-under"]);
      expect(await markets({ isSubPeriod: false })).toHaveLength(14);
      expect(await markets({ isSubPeriod: undefined })).toHaveLength(16);
    });

    test("isProp true, false and omitted, and propType", async () => {
      const props = await markets({ isProp: true });
      expect(props).toHaveLength(8);
      expect(await markets({ isProp: undefined })).toHaveLength(16);
      expect(await markets({ isProp: false })).toEqual([
        "points-all-1q-ou-over",
        "points-all-1q-ou-under",
        "points-all-game-ou-over",
        "points-all-game-ou-under",
        "points-away-game-ml-away",
        "points-away-game-sp-away",
        "points-home-game-ml-home",
        "points-home-game-sp-home",
      ]);
      expect(await markets({ propType: "player_prop" })).toEqual([
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-over",
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-under",
        "disposals-JEREMY_CAMERON_1_AFL-game-ou-over",
        "disposals-PATRICK_CRIPPS_1_AFL-game-ou-over",
      ]);
      expect(await markets({ propType: "team_prop" })).toEqual(["points-home-game-ou-over"]);
      expect(await markets({ propType: "game_prop" })).toEqual([
        "points-all-game-ml3way-draw",
        "points-home-game-ml3way-home",
        "tries-all-game-ou-over",
      ]);
      expect(await markets({ propType: "other_prop" })).toEqual([]);
      await expectInvalid("listMarkets", { caller: everything, propType: "season_prop" }, "propType");
    });

    test("each list filter: oddID (with PLAYER_ID), sportID, leagueID, bookmakerID, statID, statEntityID, periodID, betTypeID, sideID", async () => {
      expect(await markets({ oddIds: ["disposals-PLAYER_ID-game-ou-over"] })).toEqual([
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-over",
        "disposals-JEREMY_CAMERON_1_AFL-game-ou-over",
        "disposals-PATRICK_CRIPPS_1_AFL-game-ou-over",
      ]);
      expect(await markets({ sportIds: ["SOCCER"] })).toEqual([
        "points-all-game-ml3way-draw",
        "points-home-game-ml3way-home",
      ]);
      expect(await markets({ leagueIds: ["NRL"] })).toEqual([
        "points-away-game-ml-away",
        "points-home-game-ml-home",
        "tries-all-game-ou-over",
      ]);
      expect(await markets({ bookmakerIds: ["ladbrokes"] })).toEqual([
        "points-all-game-ou-over",
        "points-all-game-ou-under",
        "points-home-game-ou-over",
      ]);
      expect(await markets({ statIds: ["tries", "goals"] })).toEqual(["tries-all-game-ou-over"]);
      expect(await markets({ statEntityIds: ["away"] })).toEqual([
        "points-away-game-ml-away",
        "points-away-game-sp-away",
      ]);
      expect(await markets({ periodIds: ["1q"] })).toEqual(["points-all-1q-ou-over", "points-all-1q-ou-under"]);
      expect(await markets({ betTypeIds: ["sp"] })).toEqual(["points-away-game-sp-away", "points-home-game-sp-home"]);
      expect(await markets({ sideIds: ["under"] })).toEqual([
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-under",
        "points-all-1q-ou-under",
        "points-all-game-ou-under",
      ]);
    });

    test("a league filter narrows activeEvents and support to that league", async () => {
      const { items } = await list("listMarkets", {
        caller: everything,
        leagueIds: ["NRL"],
        oddIds: ["points-home-game-ml-home"],
      });
      expect(items[0]).toMatchObject({
        activeEvents: 1,
        support: { NRL: { neds: true, tab: true } },
        bookmakers: ["neds", "tab"],
      });
    });

    test("the plan hides other leagues; bookmakers outside its allow-list leave support, bookmakers and activeEvents", async () => {
      const afl = (await list("listMarkets", { caller: callers.aflOnly, oddIds: ["points-home-game-ml-home"] })).items;
      expect(afl[0]).toMatchObject({
        activeEvents: 2,
        support: { AFL: { sportsbet: true } },
        bookmakers: ["sportsbet"],
      });
      // Priced only by tab: unsupported for a plan that sees only sportsbet.
      expect(await markets({ oddIds: ["points-home-game-sp-home"] }, callers.aflOnly)).toEqual([]);
      const hiddenBook = await list("listMarkets", {
        caller: callers.aflOnly,
        oddIds: ["points-home-game-sp-home"],
        isSupported: false,
      });
      expect(hiddenBook.items).toEqual([
        expect.objectContaining({ oddID: "points-home-game-sp-home", activeEvents: 0, support: {}, bookmakers: [] }),
      ]);
      // Only events priced by a bookmaker in the plan count: both AFL events, via sportsbet.
      const overs = await list("listMarkets", { caller: callers.aflOnly, oddIds: ["points-all-game-ou-over"] });
      expect(overs.items[0]).toMatchObject({ activeEvents: 2, bookmakers: ["sportsbet"] });
      const cameron = await list("listMarkets", {
        caller: callers.aflOnly,
        oddIds: ["disposals-JEREMY_CAMERON_1_AFL-game-ou-over"],
        isSupported: false,
      });
      expect(cameron.items[0]).toMatchObject({ activeEvents: 0 });
      expect(await markets({ bookmakerIds: ["ladbrokes"] }, callers.aflOnly)).toEqual([]);
      expect(await markets({}, callers.nrlOnly)).toEqual(["points-away-game-ml-away", "points-home-game-ml-home"]);
      expect(await markets({ sportIds: ["SOCCER"] }, callers.aflOnly)).toEqual([]);
    });

    test("paging markets to the end returns exactly the unpaged list; limit bounds are enforced", async () => {
      const unpaged = (await list("listMarkets", { caller: everything })).items;
      expect(await allPages("listMarkets", { caller: everything }, 5)).toEqual(unpaged);
      expect(await allPages("listMarkets", { caller: everything, isProp: true }, 3)).toEqual(
        (await list("listMarkets", { caller: everything, isProp: true })).items,
      );
      await expectInvalid("listMarkets", { caller: everything, limit: 10_001 }, "limit");
      const first = await list("listMarkets", { caller: everything, limit: 5 });
      await expectInvalid("listMarkets", { caller: everything, isProp: true, cursor: first.nextCursor }, "cursor");
    });
  });
});

describe("catalogue activity as events start, end and drop out", () => {
  let harness: CatalogueHarness;

  beforeEach(async () => {
    harness = await startCatalogue({ eventTtlMs: 30 * 60_000 });
    await harness.apply(firstCycle());
  });

  afterEach(async () => {
    await harness.stop();
  });

  const activeBySport = async () =>
    Object.fromEntries(
      (await harness.list("listSports", { caller: callers.everything })).items.map((s) => [s.sportID, s.activeEvents]),
    );
  const market = async (oddID: string, isSupported?: boolean) =>
    (await harness.list("listMarkets", { caller: callers.everything, oddIds: [oddID], isSupported })).items[0];

  test("replaying a cycle changes nothing: no write, same counts", async () => {
    const revision = await harness.store.revision();
    const before = await harness.list("listMarkets", { caller: callers.everything });
    await harness.apply(firstCycle());
    await harness.apply(firstCycle());
    expect(await harness.store.revision()).toBe(revision);
    expect(await harness.list("listMarkets", { caller: callers.everything })).toEqual(before);
    expect(await activeBySport()).toEqual({ AUSSIE_RULES: 2, RUGBY_LEAGUE: 1, SOCCER: 1 });
  });

  test("an event that ends (active=false) leaves every count; its markets become unsupported", async () => {
    const cycle = firstCycle();
    cycle.events![0] = { ...cycle.events![0]!, active: false };
    await harness.apply(cycle);
    expect(await activeBySport()).toEqual({ AUSSIE_RULES: 1, RUGBY_LEAGUE: 1, SOCCER: 1 });
    expect((await market("points-home-game-ml-home")).activeEvents).toBe(2);
    expect(await market("disposals-ISAAC_HEENEY_1_AFL-game-ou-over")).toBeUndefined();
    expect(await market("disposals-ISAAC_HEENEY_1_AFL-game-ou-over", false)).toMatchObject({
      activeEvents: 0,
      isSupported: false,
      support: {},
      bookmakers: [],
    });
  });

  test("a bookmaker that stops pricing leaves support when no other event keeps it there", async () => {
    const cycle = firstCycle();
    cycle.events![0] = eventMarkets(EVENTS.swansCats, "AFL", true, { ...mainAfl, "points-all-game-ou-over": ["tab"] });
    cycle.events![1] = eventMarkets(EVENTS.tigersBlues, "AFL", true, {
      ...mainAfl,
      "points-all-game-ou-over": ["tab"],
    });
    await harness.apply(cycle);
    expect((await market("points-all-game-ou-over")).bookmakers).toEqual(["tab"]);
    expect((await market("points-all-game-ou-under")).bookmakers).toEqual(["ladbrokes", "sportsbet", "tab"]);
  });

  test("an event no cycle carries for longer than the TTL drops out; a new event starts counting", async () => {
    const withoutNrl = () => {
      const cycle = firstCycle();
      cycle.events = cycle.events!.filter((event) => event.leagueId !== "NRL");
      return cycle;
    };
    await harness.apply(withoutNrl());
    expect((await activeBySport()).RUGBY_LEAGUE).toBe(1);
    harness.clock.now += 31 * 60_000;
    await harness.apply(withoutNrl());
    expect((await activeBySport()).RUGBY_LEAGUE).toBe(0);
    expect(await market("tries-all-game-ou-over")).toBeUndefined();
    expect((await market("points-home-game-ml-home")).support).toEqual({ AFL: { sportsbet: true, tab: true } });

    const next = withoutNrl();
    next.events!.push(
      eventMarkets("NRL_2026-11-09_penrith_panthers_vs_melbourne_storm", "NRL", true, {
        "tries-all-game-ou-over": ["tab"],
      }),
    );
    await harness.apply(next);
    expect((await activeBySport()).RUGBY_LEAGUE).toBe(1);
    expect(await market("tries-all-game-ou-over")).toMatchObject({ activeEvents: 1, bookmakers: ["tab"] });
  });

  test("a restarted service rebuilds the same counts from the store", async () => {
    const cycle = firstCycle();
    cycle.events![2] = { ...cycle.events![2]!, active: false };
    await harness.apply(cycle);
    const before = await harness.list("listMarkets", { caller: callers.everything, isSupported: false });
    const beforeSports = await activeBySport();
    const uri = `${process.env.TEST_MONGODB_URL}/${harness.mongo.db.databaseName}`;
    const restarted = await startCatalogue({ uri });
    try {
      expect(await restarted.list("listMarkets", { caller: callers.everything, isSupported: false })).toEqual(before);
      const sports = (await restarted.list("listSports", { caller: callers.everything })).items;
      expect(Object.fromEntries(sports.map((s) => [s.sportID, s.activeEvents]))).toEqual(beforeSports);
    } finally {
      await restarted.stop();
    }
  });

  test("a second replica reloads when the other one writes", async () => {
    const uri = `${process.env.TEST_MONGODB_URL}/${harness.mongo.db.databaseName}`;
    const replica = await startCatalogue({ uri });
    try {
      const cycle = firstCycle();
      cycle.events![3] = { ...cycle.events![3]!, active: false };
      await harness.apply(cycle);
      const sports = async () => (await replica.list("listSports", { caller: callers.everything })).items;
      expect((await sports()).find((s) => s.sportID === "SOCCER").activeEvents).toBe(1);
      await replica.service.refreshIfBehind();
      expect((await sports()).find((s) => s.sportID === "SOCCER").activeEvents).toBe(0);
    } finally {
      await replica.stop();
    }
  });

  test("ApplyCatalogue answers over gRPC with an empty response", async () => {
    const response = await callUnary(
      harness.client,
      harness.client.applyCatalogue,
      catalogue.ApplyCatalogueRequest.fromPartial({ cycleId: "empty" }),
    );
    expect(response).toEqual({});
  });
});

describe("ApplyCatalogue's request as the service decodes it", () => {
  test("ingest's encoded request reads, event by event, as the normalised states of its events", () => {
    const request = catalogue.ApplyCatalogueRequest.fromPartial(firstCycle());
    // Unsorted and repeated bookmakers and a repeated side: normalised at decode, as before.
    const [first] = request.events;
    first!.markets.push({ ...first!.markets[0]!, bookmakerIds: ["tab", "sportsbet", "tab"] });
    const wire = Buffer.from(catalogue.ApplyCatalogueRequest.encode(request).finish());
    const cycle = toCycle(catalogue.ApplyCatalogueRequestEncoded.decode(wire));
    expect(cycle.sports.map((sport) => sport.sportID)).toEqual(request.sports.map((sport) => sport.sportId));
    expect(cycle.teams.map((team) => team.teamID)).toEqual(request.teams.map((team) => team.teamId));
    expect(cycle.events).toEqual(
      request.events.map((event) =>
        normalizeEventState({
          eventID: event.eventId,
          sportID: event.sportId,
          leagueID: event.leagueId,
          active: event.active,
          markets: event.markets.map((market) => ({ oddID: market.oddId, bookmakerIDs: market.bookmakerIds })),
        }),
      ),
    );
    const repeated = cycle.events[0]!.markets.find((market) => market.oddID === first!.markets[0]!.oddId)!;
    expect(repeated.bookmakerIDs).toEqual(
      [...new Set([...first!.markets[0]!.bookmakerIds, "sportsbet", "tab"])].sort(),
    );
  });
});

describe("pages renewed by their tag", () => {
  let harness: CatalogueHarness;

  beforeEach(async () => {
    harness = await startCatalogue();
    await harness.apply(firstCycle());
  });

  afterEach(async () => {
    await harness.stop();
  });

  const READS: [ListMethod, object][] = [
    ["listSports", {}],
    ["listLeagues", { sportIds: ["AUSSIE_RULES"] }],
    ["listTeams", { limit: 3 }],
    ["listPlayers", { limit: 3 }],
    ["listStats", { statLevel: "player" }],
    ["listMarkets", { limit: 5 }],
  ];

  test("each read tags its page; the same request naming the tag gets it back unchanged, with no items", async () => {
    for (const [method, query] of READS) {
      const request = { caller: everything, ...query };
      const first = await harness.tagged(method, request);
      expect(first.tag).not.toBe("");
      expect(first.unchanged).toBe(false);
      expect(first.items.length).toBeGreaterThan(0);
      const again = await harness.tagged(method, request);
      expect(again).toEqual(first);
      expect(await harness.tagged(method, { ...request, ifTag: first.tag })).toEqual({
        items: [],
        tag: first.tag,
        unchanged: true,
      });
      // A tag this page never had gets the page.
      expect(await harness.tagged(method, { ...request, ifTag: "another" })).toEqual(first);
    }
  });

  test("another query, page, view or plan is another page; another key on the same plan shares it", async () => {
    const tagOf = async (method: ListMethod, request: object) => (await harness.tagged(method, request)).tag;
    const markets = { caller: everything, limit: 5 };
    const base = await tagOf("listMarkets", markets);
    const first = await harness.list("listMarkets", markets);
    const others = [
      await tagOf("listMarkets", { ...markets, limit: 6 }),
      await tagOf("listMarkets", { ...markets, cursor: first.nextCursor }),
      await tagOf("listMarkets", { ...markets, leagueIds: ["AFL"] }),
      await tagOf("listMarkets", { ...markets, isSupported: false }),
      await tagOf("listMarkets", { ...markets, view: "v1" }),
      await tagOf("listMarkets", { ...markets, caller: callers.nrlOnly }),
      await tagOf("listMarkets", { ...markets, caller: { ...everything, fairOdds: true } }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
    expect(await tagOf("listMarkets", { ...markets, caller: { ...everything, keyId: "another-key" } })).toBe(base);
  });

  test("a cycle that changes the catalogue changes every tag; a replayed cycle changes none", async () => {
    const request = { caller: everything };
    const sports = await harness.tagged("listSports", request);
    const markets = await harness.tagged("listMarkets", request);
    await harness.apply(firstCycle());
    expect((await harness.tagged("listSports", { ...request, ifTag: sports.tag })).unchanged).toBe(true);

    const cycle = firstCycle();
    cycle.events![3] = { ...cycle.events![3]!, active: false };
    await harness.apply(cycle);
    const renewed = await harness.tagged("listSports", { ...request, ifTag: sports.tag });
    expect(renewed.unchanged).toBe(false);
    expect(renewed.tag).not.toBe(sports.tag);
    expect(renewed.items.find((s) => s.sportID === "SOCCER").activeEvents).toBe(0);
    // A page whose own items did not move still names another catalogue: renewed whole, not unchanged.
    const marketsAfter = await harness.tagged("listMarkets", { ...request, ifTag: markets.tag });
    expect(marketsAfter.unchanged).toBe(false);
    expect(marketsAfter.tag).not.toBe(markets.tag);
  });

  test("a restarted service and a reloaded replica tag their pages anew: a held tag gets the whole page", async () => {
    const request = { caller: everything };
    const held = await harness.tagged("listSports", request);
    const uri = `${process.env.TEST_MONGODB_URL}/${harness.mongo.db.databaseName}`;
    const restarted = await startCatalogue({ uri });
    try {
      const answer = await restarted.tagged("listSports", { ...request, ifTag: held.tag });
      expect(answer.unchanged).toBe(false);
      expect(answer.items).toEqual(held.items);

      const before = await restarted.tagged("listSports", request);
      const cycle = firstCycle();
      cycle.events![3] = { ...cycle.events![3]!, active: false };
      await harness.apply(cycle);
      await restarted.service.refreshIfBehind();
      const reloaded = await restarted.tagged("listSports", { ...request, ifTag: before.tag });
      expect(reloaded.unchanged).toBe(false);
      expect(reloaded.items.find((s) => s.sportID === "SOCCER").activeEvents).toBe(0);
    } finally {
      await restarted.stop();
    }
  });
});
