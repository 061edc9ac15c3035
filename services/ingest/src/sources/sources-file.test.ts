import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { SpendStore } from "../store/spend-store";
import { DEFAULT_SOURCES_FILE, loadSources } from "./sources-file";

const settings = { seed: "s", quietLeagues: [] };
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "sources-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let written = 0;
const file = (text: string) => {
  written += 1;
  const path = join(dir, `sources-${written}.yaml`);
  writeFileSync(path, text);
  return path;
};

describe("the sources file", () => {
  test("the committed defaults carry one bookmaker through two sources of different rank", () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, settings);
    expect(sources.map((s) => [s.id, s.rank])).toEqual([
      ["sim-aggregator", 10],
      ["sim-betfair-stream", 20],
    ]);
  });

  test("a bad file fails naming the file and the problem", () => {
    const path = file("sources:\n  - id: x\n    kind: telepathy\n    rank: 1\n    bookmakers: [tab]\n");
    expect(() => loadSources(path, settings)).toThrow(new RegExp(`invalid sources file ${path}: sources.0.kind`));
    expect(() => loadSources("/nonexistent/sources.yaml", settings)).toThrow(/cannot read sources file/);
  });

  test("duplicate ids and unknown bookmakers are refused", () => {
    const twice = file(
      "sources:\n  - {id: a, kind: simulated, rank: 1, bookmakers: [tab]}\n  - {id: a, kind: simulated, rank: 2, bookmakers: [tab]}\n",
    );
    expect(() => loadSources(twice, settings)).toThrow(/unique/);
    const unknown = file("sources:\n  - {id: a, kind: simulated, rank: 1, bookmakers: [nobody]}\n");
    expect(() => loadSources(unknown, settings)).toThrow(/unknown simulated bookmakers nobody/);
  });

  test("real sources take their keys from the named environment variables and their mapping from the file", () => {
    const path = file(`sources:
  - id: sgo
    kind: sportsgameodds
    rank: 30
    baseUrl: http://127.0.0.1:1
    apiKeyEnv: SGO_KEY
    objectsPerMonth: 1000
    leagues:
      - {leagueID: AFL, sportID: AUSSIE_RULES, sportName: Aussie Rules, sportShortName: AR, name: AFL, shortName: AFL}
  - id: toa
    kind: the-odds-api
    rank: 20
    baseUrl: http://127.0.0.1:1
    apiKeyEnv: TOA_KEY
    dailyBudget: 500
    bookmakers: {pointsbetau: pointsbet_au}
    aliases: {teams: {"GWS": GREATER_WESTERN_SYDNEY_GIANTS_AFL}}
    leagues:
      - {leagueID: AFL, sportID: AUSSIE_RULES, sportName: Aussie Rules, sportShortName: AR, name: AFL, shortName: AFL, sportKey: aussierules_afl}
`);
    // Loading never touches the store (the driver connects on first use).
    const spendLedger = new SpendStore(new MongoClient("mongodb://127.0.0.1:1/ingest").db());
    const sources = loadSources(path, settings, { env: { SGO_KEY: "a", TOA_KEY: "b" }, spendLedger });
    expect(sources.map((s) => [s.id, s.rank, s.nameMatching !== undefined])).toEqual([
      ["sgo", 30, false],
      ["toa", 20, true],
    ]);
    expect(sources[1]?.nameMatching).toEqual({
      kickoffToleranceMs: 30 * 60_000,
      teamAliases: { GWS: "GREATER_WESTERN_SYDNEY_GIANTS_AFL" },
      playerAliases: {},
    });
    expect(() => loadSources(path, settings, { env: { SGO_KEY: "a" }, spendLedger })).toThrow(
      /source toa needs its key in TOA_KEY/,
    );
    // Budgets are kept across restarts in the ingest store: without it the start fails naming the variable.
    expect(() => loadSources(path, settings, { env: { SGO_KEY: "a", TOA_KEY: "b" } })).toThrow(
      /source sgo has a plan budget.*INGEST_MONGODB_URI/,
    );
  });
});
