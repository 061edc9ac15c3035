// The whole stack with ingest on both real-feed adapters, pointed at the local fixture server in
// SportsGameOdds' and The Odds API's documented shapes: events, odds, history and catalogue filled
// from them, read back through the edge. This suite starts its own stack (free ports) beside the
// shared simulated one, through the same launcher, given a sources file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  nicenessBelowOwn,
  removeScratchFolder,
  scratchFolder,
  SERVICE_NAMES,
  SERVICE_NICENESS,
  startStack,
  threadNiceness,
  waitUntil,
  type RunningStack,
} from "@odds/local";
import { getV2 } from "../support/e2e";
import { FIXTURE_KEYS, UpstreamFixtureServer } from "../support/upstream/fixture-server";

const AFL_INFO =
  "{leagueID: AFL, sportID: AUSSIE_RULES, sportName: Australian Rules Football, sportShortName: Aussie Rules, name: Australian Football League, shortName: AFL}";
const RICHMOND_V_CARLTON = "n5cDs1Y4hB3uKqWd0aFl";
const FINISHED = "Zk3PwQ9aLm1NbVc5Xr7T";

function sourcesFile(dir: string, baseUrl: string): string {
  const path = join(dir, "sources.yaml");
  writeFileSync(
    path,
    `sources:
  - id: sportsgameodds
    kind: sportsgameodds
    rank: 30
    baseUrl: ${baseUrl}
    apiKeyEnv: E2E_SGO_KEY
    pageLimit: 2
    retryBaseDelayMs: 50
    leagues: [${AFL_INFO}]
  - id: the-odds-api-au
    kind: the-odds-api
    rank: 20
    baseUrl: ${baseUrl}
    apiKeyEnv: E2E_TOA_KEY
    dailyBudget: 100000
    mainEveryMinutes: 0
    retryBaseDelayMs: 50
    bookmakers: {pointsbetau: pointsbet_au, sportsbet: sportsbet, betfair_ex_au: betfair_ex_au}
    exchanges: [betfair_ex_au]
    playerMarkets:
      player_disposals: {stat: disposals, betType: ou}
      player_goals_scored_over: {stat: goals, betType: ou}
    aliases:
      teams: {"Greater Western Sydney": GREATER_WESTERN_SYDNEY_GIANTS_AFL}
      players: {"Nick Daicos": NICK_DAICOS_1_AFL}
    leagues:
      - {leagueID: AFL, sportID: AUSSIE_RULES, sportName: Australian Rules Football, sportShortName: Aussie Rules, name: Australian Football League, shortName: AFL, sportKey: aussierules_afl, eventMarkets: [player_disposals, player_goals_scored_over, h2h_q1]}
`,
  );
  return path;
}

let upstream: UpstreamFixtureServer;
let stack: RunningStack;
let dataDir: string | undefined;
const get = (path: string) => getV2(path, { tier: "internal", stack });

/** What `read` finds once ingest has written it: `read` throws, saying what it saw, while it is not there yet. */
function eventually<T>(what: string, read: () => Promise<T>): Promise<T> {
  return waitUntil(what, read, { timeoutMs: 120_000, intervalMs: 1_000 });
}

beforeAll(async () => {
  upstream = await new UpstreamFixtureServer().start();
  dataDir = scratchFolder("odds-e2e-real-");
  stack = await startStack({
    dataDir,
    ports: "free",
    persistRedis: false,
    sourcesFile: sourcesFile(dataDir, upstream.baseUrl),
    serviceEnv: {
      ingest: {
        INGEST_INTERVAL_MS: "5000",
        BACKFILL_DAYS: "0",
        E2E_SGO_KEY: FIXTURE_KEYS.sportsgameodds,
        E2E_TOA_KEY: FIXTURE_KEYS.theOddsApi,
      },
    },
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  await upstream?.stop();
  removeScratchFolder(dataDir);
}, 120_000);

describe("ingest on both real feeds (fixture server)", () => {
  test("events carry both sources' bookmakers on the matched event, with player and period markets", async () => {
    const event = await eventually("the matched event with both sources' bookmakers", async () => {
      const res = await get(`/events/?eventID=${RICHMOND_V_CARLTON}`);
      const found = res.status === 200 ? res.body.data[0] : undefined;
      if (found?.odds?.["points-home-game-ml-home"]?.byBookmaker?.pointsbet_au) return found;
      throw new Error(`no PointsBet moneyline on the event yet (${res.status})`);
    });
    expect(event.teams.home.teamID).toBe("RICHMOND_TIGERS_AFL");
    expect(event.info.stale).toBe(false);
    const ml = event.odds["points-home-game-ml-home"].byBookmaker;
    expect(ml.sportsbet.odds).toBe("-150"); // SportsGameOdds (rank 30) wins the bookmaker both carry
    expect(ml.pointsbet_au.odds).toBe("-155"); // only The Odds API carries PointsBet
    expect(ml.betfair_ex_au.odds).toBe("-150");
    expect(event.odds["disposals-DUSTIN_MARTIN_1_AFL-game-ou-over"].byBookmaker.pointsbet_au.overUnder).toBe("24.5");
    expect(event.odds["disposals-DUSTIN_MARTIN_1_AFL-game-ou-over"].byBookmaker.sportsbet.overUnder).toBe("24.5");
    expect(event.odds["points-home-1q-ml-home"].byBookmaker.pointsbet_au.odds).toBe("-135");

    const collingwood = (await get("/events/?eventID=Qv8TnR2mZs0bLx7cYe4J")).body.data[0];
    expect(collingwood.odds["disposals-NICK_DAICOS_1_AFL-game-ou-over"].byBookmaker.pointsbet_au.overUnder).toBe(
      "29.5",
    );
  });

  test("finished events keep their status and results", async () => {
    const res = await get(`/events/?eventID=${FINISHED}&includeFinished=true`);
    expect(res.status).toBe(200);
    const [event] = res.body.data;
    expect(event.status.finalized).toBe(true);
    expect(event.results.game.home.points).toBe(98);
  });

  test("history records each source's bookmakers, the exchange with its lay price and stake", async () => {
    const ticks = await eventually("ticks of both sources' bookmakers", async () => {
      const res = await get(`/odds/history/?eventID=${RICHMOND_V_CARLTON}&limit=5000`);
      const data: any[] = res.status === 200 ? res.body.data : [];
      if (data.some((t) => t.bookmakerID === "pointsbet_au") && data.some((t) => t.bookmakerID === "sportsbet"))
        return data;
      throw new Error(`${data.length} ticks, not yet of both sources (${res.status})`);
    });
    const exchange = ticks.find(
      (t: any) => t.bookmakerID === "betfair_ex_au" && t.oddID === "points-home-game-ml-home",
    );
    expect(exchange).toMatchObject({ kind: "open", bookOdds: "-150", maxStake: 1520.5 });
    expect(exchange.layOdds).toBeCloseTo(1 + 100 / 145, 6);
  });

  test("the catalogue carries the feeds' leagues, teams and players", async () => {
    const teams = await eventually("the feeds' AFL teams", async () => {
      const res = await get("/teams/?leagueID=AFL");
      const ids: string[] = res.status === 200 ? res.body.data.map((t: any) => t.teamID) : [];
      if (ids.includes("RICHMOND_TIGERS_AFL")) return ids;
      throw new Error(`no Richmond among ${ids.length} AFL teams yet (${res.status})`);
    });
    expect(teams).toEqual(expect.arrayContaining(["CARLTON_BLUES_AFL", "GREATER_WESTERN_SYDNEY_GIANTS_AFL"]));
    const players = await get(`/players/?eventID=${RICHMOND_V_CARLTON}`);
    expect(players.status).toBe(200);
    expect(players.body.data.map((p: any) => p.playerID)).toContain("DUSTIN_MARTIN_1_AFL");
  });

  test("the feeds were asked as documented: SportsGameOdds paged to its 404 cursor, The Odds API within budget", () => {
    expect(upstream.requestsTo(/\/v2\/events/).some((r) => r.status === 404)).toBe(true);
    expect(upstream.requestsTo(/\/v4\/sports\/aussierules_afl\/events\/.+\/odds/).length).toBeGreaterThan(0);
    expect(upstream.creditsUsed).toBeGreaterThan(0);
  });
});

describe("ingest on one host with the read path", () => {
  test("runs below the launcher's CPU priority, every thread of it, and every other service at it", () => {
    expect(SERVICE_NICENESS.ingest).toBeGreaterThan(0);
    for (const name of SERVICE_NAMES) {
      const expected = nicenessBelowOwn(SERVICE_NICENESS[name] ?? 0);
      const threads = threadNiceness(stack.service(name).child.pid!);
      expect([name, new Set(threads.values())]).toEqual([name, new Set([expected])]);
    }
  });
});
