import { Catalogue, type CatalogueCycle, type TeamRecord } from "./catalogue";

const emptyCycle = (): CatalogueCycle => ({ sports: [], leagues: [], teams: [], players: [], stats: [], events: [] });

function team(colors: TeamRecord["colors"], long = "Sydney Swans"): TeamRecord {
  return {
    teamID: "SYDNEY_SWANS_AFL",
    sportID: "AUSSIE_RULES",
    leagueID: "AFL",
    names: { long, medium: "", short: "SYD" },
    colors,
    statEntityID: "home",
  };
}

function applied(catalogue: Catalogue, cycle: CatalogueCycle, now = 0) {
  const changes = catalogue.changesOf(cycle, now - 1_000);
  catalogue.commit(
    changes,
    now,
    cycle.events.map((e) => e.eventID),
  );
  return changes;
}

describe("planning a cycle", () => {
  test("a later cycle that omits a known colour or name keeps it; a new value replaces it", () => {
    const catalogue = new Catalogue();
    applied(catalogue, { ...emptyCycle(), teams: [team({ primary: "#111", secondary: "#222" })] });
    applied(catalogue, { ...emptyCycle(), teams: [team({ primary: "#333", secondary: "" }, "")] });
    expect(catalogue.teams.get("SYDNEY_SWANS_AFL")).toMatchObject({
      names: { long: "Sydney Swans", medium: "", short: "SYD" },
      colors: { primary: "#333", secondary: "#222" },
    });
  });

  test("a player's events and a stat's sports and levels accumulate across cycles", () => {
    const catalogue = new Catalogue();
    const player = (eventIDs: string[]) => ({
      playerID: "P_1_AFL",
      teamID: "T_AFL",
      sportID: "AUSSIE_RULES",
      leagueID: "AFL",
      name: "P",
      firstName: "",
      lastName: "",
      eventIDs,
    });
    const stat = (sportIDs: string[], player: boolean) => ({
      statID: "tries",
      supportedLevels: { all: !player, team: false, player },
      displays: { short: "T", long: "Tries" },
      sportIDs,
    });
    applied(catalogue, { ...emptyCycle(), players: [player(["e2"])], stats: [stat(["RUGBY_LEAGUE"], false)] });
    applied(catalogue, { ...emptyCycle(), players: [player(["e1"])], stats: [stat(["RUGBY_UNION"], true)] });
    expect(catalogue.players.get("P_1_AFL")!.eventIDs).toEqual(["e1", "e2"]);
    expect(catalogue.stats.get("tries")).toMatchObject({
      supportedLevels: { all: true, team: false, player: true },
      sportIDs: ["RUGBY_LEAGUE", "RUGBY_UNION"],
    });
  });

  test("replaying the same records plans no change", () => {
    const catalogue = new Catalogue();
    const cycle: CatalogueCycle = {
      ...emptyCycle(),
      teams: [team({ primary: "#111" })],
      events: [
        {
          eventID: "e1",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          active: true,
          markets: [{ oddID: "points-home-game-ml-home", bookmakerIDs: ["tab", "sportsbet"] }],
        },
      ],
    };
    applied(catalogue, cycle);
    const again = catalogue.changesOf(cycle, -1_000);
    expect(Object.values(again).every((records) => records.length === 0)).toBe(true);
  });

  test("oddIDs outside the grammar and events without ids are left out", () => {
    const catalogue = new Catalogue();
    const changes = applied(catalogue, {
      ...emptyCycle(),
      events: [
        {
          eventID: "e1",
          sportID: "SOCCER",
          leagueID: "EPL",
          active: true,
          markets: [
            { oddID: "points-home-game-ml-home", bookmakerIDs: ["tab"] },
            { oddID: "garbage", bookmakerIDs: ["tab"] },
          ],
        },
        { eventID: "", sportID: "SOCCER", leagueID: "EPL", active: true, markets: [] },
      ],
    });
    expect(changes.events.map((e) => [e.eventID, e.markets.map((m) => m.oddID)])).toEqual([
      ["e1", ["points-home-game-ml-home"]],
    ]);
    expect([...catalogue.markets.keys()]).toEqual(["points-home-game-ml-home"]);
    expect(catalogue.activity.leagueActiveEvents("EPL")).toBe(1);
  });

  test("a side whose entity is a listed team is a team market", () => {
    const catalogue = new Catalogue();
    applied(catalogue, {
      ...emptyCycle(),
      teams: [team({})],
      events: [
        {
          eventID: "AFL_futures",
          sportID: "AUSSIE_RULES",
          leagueID: "AFL",
          active: true,
          markets: [{ oddID: "winner-SYDNEY_SWANS_AFL-season-yn-yes", bookmakerIDs: ["tab"] }],
        },
      ],
    });
    expect(catalogue.markets.get("winner-SYDNEY_SWANS_AFL-season-yn-yes")).toMatchObject({
      teamID: "SYDNEY_SWANS_AFL",
      propType: "team_prop",
    });
  });
});
