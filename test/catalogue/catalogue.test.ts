import { callUnary, createGrpcClient } from "@odds/platform";
import { catalogue } from "@odds/proto";
import type { Tier } from "@odds/local";
import { e2eStack, getV2 as getOnce } from "../support/e2e";

/** The lite key has tight per-second limits shared with other suites: wait out a 429 rather than fail. */
async function getV2(path: string, options: { tier: Tier }) {
  for (let attempt = 0; ; attempt++) {
    const res = await getOnce(path, options);
    if (res.status !== 429 || attempt === 5) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after") ?? "1") * 1_000));
  }
}

// Seeded straight into the running catalogue service with IDs the simulated feed never uses,
// so these assertions hold whatever ingest writes beside them. E2E_CRICKET is outside the lite plan.
const LEAGUE = "E2E_BBL";
const EVENT_ONE = "E2E_BBL_2026-11-02_sixers_vs_scorchers";
const EVENT_TWO = "E2E_BBL_2026-11-03_heat_vs_stars";
const AFL_EVENT = "AFL_2026-11-02_e2e_home_vs_e2e_away";
const RUNS_OVER = "e2e_runs-all-game-ou-over";
const RUNS_UNDER = "e2e_runs-all-game-ou-under";

function seed(activeTwo: boolean): catalogue.ApplyCatalogueRequest {
  const team = (teamId: string, longName: string, statEntityId: string) => ({
    teamId,
    sportId: "E2E_CRICKET",
    leagueId: LEAGUE,
    longName,
    mediumName: longName.split(" ").pop()!,
    shortName: longName.slice(0, 3).toUpperCase(),
    primaryColor: "#ff00aa",
    statEntityId,
  });
  return catalogue.ApplyCatalogueRequest.fromPartial({
    cycleId: `e2e-${activeTwo}`,
    sports: [{ sportId: "E2E_CRICKET", name: "E2E Cricket", shortName: "CRK" }],
    leagues: [{ leagueId: LEAGUE, sportId: "E2E_CRICKET", name: "E2E Big Bash", shortName: "BBL" }],
    teams: [
      team("SIXERS_E2E_BBL", "Sydney Sixers", "home"),
      team("SCORCHERS_E2E_BBL", "Perth Scorchers", "away"),
      team("HEAT_E2E_BBL", "Brisbane Heat", "home"),
      team("STARS_E2E_BBL", "Melbourne Stars", "away"),
    ],
    players: [
      {
        playerId: "STEVE_SMITH_1_E2E_BBL",
        teamId: "SIXERS_E2E_BBL",
        sportId: "E2E_CRICKET",
        leagueId: LEAGUE,
        name: "Steve Smith",
        firstName: "Steve",
        lastName: "Smith",
        position: "Batter",
        jerseyNumber: 49,
        eventIds: [EVENT_ONE],
      },
    ],
    stats: [
      {
        statId: "e2e_runs",
        levelAll: true,
        levelPlayer: true,
        displayShort: "R",
        displayLong: "Runs",
        sportIds: ["E2E_CRICKET", "AUSSIE_RULES"],
      },
    ],
    events: [
      {
        eventId: EVENT_ONE,
        sportId: "E2E_CRICKET",
        leagueId: LEAGUE,
        active: true,
        markets: [
          { oddId: RUNS_OVER, bookmakerIds: ["sportsbet", "pinnacle"] },
          { oddId: RUNS_UNDER, bookmakerIds: ["sportsbet"] },
        ],
      },
      {
        eventId: EVENT_TWO,
        sportId: "E2E_CRICKET",
        leagueId: LEAGUE,
        active: activeTwo,
        markets: [{ oddId: RUNS_OVER, bookmakerIds: ["tab"] }],
      },
      {
        eventId: AFL_EVENT,
        sportId: "AUSSIE_RULES",
        leagueId: "AFL",
        active: true,
        markets: [{ oddId: RUNS_OVER, bookmakerIds: ["sportsbet", "pinnacle"] }],
      },
    ],
  });
}

/**
 * The edge serves an answer for up to its cache's max age (1 s by default) from the start of the
 * load that made it. A write made here bypasses the feed cycle whose version would retire such an
 * answer, so a read sees the write only once that age has passed: another suite may have loaded
 * the same answer (the internal tier's /sports/, say) just before the write.
 */
const ANSWER_MAX_AGE_MS = 1_000;

describe("catalogue routes through the running stack", () => {
  let client: catalogue.CatalogueServiceClient;
  const apply = async (request: catalogue.ApplyCatalogueRequest) => {
    await callUnary(client, client.applyCatalogue, request);
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MAX_AGE_MS + 100));
  };

  beforeAll(async () => {
    client = createGrpcClient(catalogue.CatalogueServiceClient, `127.0.0.1:${e2eStack().ports.catalogue}`, {
      defaultDeadlineMs: 10_000,
    });
    await apply(seed(true));
  });

  afterAll(() => client.close());

  test("/sports/ lists a sport outside the plan as disabled rather than hiding it, and ignores parameters", async () => {
    const lite = await getV2("/sports/?limit=-1&isProp=maybe", { tier: "lite" });
    expect(lite.status).toBe(200);
    expect(lite.body.success).toBe(true);
    expect(lite.body.nextCursor).toBeNull();
    const cricket = lite.body.data.find((sport: any) => sport.sportID === "E2E_CRICKET");
    expect(cricket).toMatchObject({ name: "E2E Cricket", shortName: "CRK", enabled: false });
    expect(cricket.activeEvents).toBe(2);
    const base = await getV2("/sports/", { tier: "internal" });
    expect(base.body.data.find((sport: any) => sport.sportID === "E2E_CRICKET").enabled).toBe(true);
  });

  test("/leagues/ filters by sportID and leagueID and reports enabled by plan with activeEvents", async () => {
    const lite = await getV2(`/leagues/?sportID=E2E_CRICKET&leagueID=${LEAGUE}`, { tier: "lite" });
    expect(lite.status).toBe(200);
    expect(lite.body.data).toEqual([
      {
        leagueID: LEAGUE,
        sportID: "E2E_CRICKET",
        name: "E2E Big Bash",
        shortName: "BBL",
        enabled: false,
        activeEvents: 2,
      },
    ]);
    const base = await getV2(`/leagues/?leagueID=${LEAGUE}`, { tier: "internal" });
    expect(base.body.data[0].enabled).toBe(true);
  });

  test("/teams/ pages to the end through the edge and hides leagues outside the plan", async () => {
    const unpaged = await getV2(`/teams/?leagueID=${LEAGUE}`, { tier: "internal" });
    expect(unpaged.body.data.map((t: any) => t.teamID)).toEqual([
      "HEAT_E2E_BBL",
      "SCORCHERS_E2E_BBL",
      "SIXERS_E2E_BBL",
      "STARS_E2E_BBL",
    ]);
    expect(unpaged.body.data[2]).toEqual({
      teamID: "SIXERS_E2E_BBL",
      sportID: "E2E_CRICKET",
      leagueID: LEAGUE,
      names: { long: "Sydney Sixers", medium: "Sixers", short: "SYD" },
      colors: { primary: "#ff00aa" },
      statEntityID: "home",
    });
    const paged: any[] = [];
    let path = `/teams/?leagueID=${LEAGUE}&limit=3`;
    for (;;) {
      const page = await getV2(path, { tier: "internal" });
      expect(page.status).toBe(200);
      paged.push(...page.body.data);
      if (page.body.nextCursor === null) break;
      path = `/teams/?leagueID=${LEAGUE}&limit=3&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    expect(paged).toEqual(unpaged.body.data);
    const lite = await getV2(`/teams/?leagueID=${LEAGUE}`, { tier: "lite" });
    expect(lite.body.data).toEqual([]);
  });

  test("/players/ filters by eventID and carries position and jerseyNumber", async () => {
    const res = await getV2(`/players/?eventID=${EVENT_ONE}`, { tier: "internal" });
    expect(res.body.data).toEqual([
      {
        playerID: "STEVE_SMITH_1_E2E_BBL",
        teamID: "SIXERS_E2E_BBL",
        sportID: "E2E_CRICKET",
        leagueID: LEAGUE,
        name: "Steve Smith",
        firstName: "Steve",
        lastName: "Smith",
        position: "Batter",
        jerseyNumber: 49,
      },
    ]);
  });

  test("/stats/ filters by statID, sportID and statLevel", async () => {
    const player = await getV2("/stats/?statID=e2e_runs&sportID=E2E_CRICKET&statLevel=player", { tier: "internal" });
    expect(player.body.data).toEqual([
      {
        statID: "e2e_runs",
        supportedLevels: { all: true, team: false, player: true },
        displays: { short: "R", long: "Runs" },
        isScoreStat: false,
        supportedSports: { AUSSIE_RULES: true, E2E_CRICKET: true },
      },
    ]);
    const team = await getV2("/stats/?statID=e2e_runs&sportID=E2E_CRICKET&statLevel=team", { tier: "internal" });
    expect(team.body.data).toEqual([]);
  });

  test("/markets/ removes leagues and bookmakers outside the plan from support and bookmakers", async () => {
    const base = await getV2(`/markets/?oddID=${RUNS_OVER}`, { tier: "internal" });
    expect(base.body.data).toEqual([
      expect.objectContaining({
        oddID: RUNS_OVER,
        marketGroupID: "e2e_runs-all-game-ou",
        isProp: true,
        propType: "game_prop",
        isSupported: true,
        activeEvents: 3,
        support: { AFL: { pinnacle: true, sportsbet: true }, [LEAGUE]: { pinnacle: true, sportsbet: true, tab: true } },
        bookmakers: ["pinnacle", "sportsbet", "tab"],
      }),
    ]);
    const lite = await getV2(`/markets/?oddID=${RUNS_OVER}`, { tier: "lite" });
    expect(lite.body.data).toEqual([
      expect.objectContaining({ activeEvents: 1, support: { AFL: { sportsbet: true } }, bookmakers: ["sportsbet"] }),
    ]);
    const props = await getV2(`/markets/?statID=e2e_runs&isProp=true&isMainMarket=false`, { tier: "internal" });
    expect(props.body.data.map((m: any) => m.oddID)).toEqual([RUNS_OVER, RUNS_UNDER]);
    const mains = await getV2(`/markets/?statID=e2e_runs&isMainMarket=true`, { tier: "internal" });
    expect(mains.body.data).toEqual([]);
  });

  test("an event that ends leaves activeEvents and support within the answer cache's max age", async () => {
    await apply(seed(false));
    const league = await getV2(`/leagues/?leagueID=${LEAGUE}`, { tier: "internal" });
    expect(league.body.data[0].activeEvents).toBe(1);
    const market = await getV2(`/markets/?oddID=${RUNS_OVER}&leagueID=${LEAGUE}`, { tier: "internal" });
    expect(market.body.data[0]).toMatchObject({
      activeEvents: 1,
      support: { [LEAGUE]: { pinnacle: true, sportsbet: true } },
      bookmakers: ["pinnacle", "sportsbet"],
    });
    await apply(seed(true));
  });

  test.each([
    ["/teams/?limit=0", "limit"],
    ["/teams/?limit=251", "limit"],
    ["/players/?limit=abc", "limit"],
    ["/markets/?limit=10001", "limit"],
    ["/markets/?isMainMarket=yes", "isMainMarket"],
    ["/markets/?isSupported=1", "isSupported"],
    ["/markets/?propType=season_prop", "propType"],
    ["/stats/?statLevel=league", "statLevel"],
    ["/markets/?cursor=not-a-cursor", "cursor"],
  ])("%s answers 400 Invalid params naming %s", async (path, parameter) => {
    const res = await getV2(path, { tier: "internal" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "Invalid params" });
    expect(res.body.message).toContain(parameter);
  });

  test("a cursor replayed with other filters is 400 naming cursor", async () => {
    const first = await getV2(`/teams/?leagueID=${LEAGUE}&limit=1`, { tier: "internal" });
    const replay = await getV2(`/teams/?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, {
      tier: "internal",
    });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toContain("cursor");
  });
});

describe("catalogue fed by ingest", () => {
  async function waitFor<T>(read: () => Promise<T | undefined>): Promise<T> {
    for (let attempt = 0; attempt < 60; attempt++) {
      const value = await read();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    throw new Error("ingest never fed the catalogue");
  }

  test("the simulated feed's sports carry active events and main markets with Australian bookmakers", async () => {
    const aussieRules = await waitFor(async () => {
      const res = await getV2("/sports/", { tier: "internal" });
      return res.body.data.find((sport: any) => sport.sportID === "AUSSIE_RULES" && sport.activeEvents > 0);
    });
    expect(aussieRules.enabled).toBe(true);
    const res = await getV2("/markets/?leagueID=AFL&isMainMarket=true", { tier: "internal" });
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: any) => m.oddID)).toEqual(
      expect.arrayContaining(["points-home-game-ml-home", "points-away-game-ml-away"]),
    );
    for (const market of res.body.data) {
      expect(market).toMatchObject({ isMainMarket: true, isProp: false, isSupported: true });
      expect(market.activeEvents).toBeGreaterThan(0);
      expect(Object.keys(market.support)).toEqual(["AFL"]);
      expect(market.bookmakers.length).toBeGreaterThan(0);
    }
  });
});
