import type { FeedBook, FeedEvent, FeedQuote, FeedSnapshot } from "../../sources/feed-source";
import { contrastColor, normaliseCycle, normaliseQuote, observeSnapshot } from ".";

const at = new Date("2026-11-21T09:00:00Z");

const quote = (over: Partial<FeedQuote>): FeedQuote => ({
  stat: "POINTS",
  entity: "HOME",
  period: "GAME",
  betType: "ML",
  side: "HOME",
  decimal: 1.9,
  mainLine: true,
  suspended: false,
  ...over,
});

const moneyline = (home: number, away: number, suspended = false): FeedQuote[] => [
  quote({ decimal: home, suspended }),
  quote({ entity: "AWAY", side: "AWAY", decimal: away, suspended }),
];

const book = (bookmaker: string, quotes: FeedQuote[]): FeedBook => ({
  bookmaker,
  eventName: "Collingwood v Carlton",
  eventUrl: `https://${bookmaker}.example/e/1`,
  betslip: { kind: "copy", urlTemplate: "" },
  quotes,
});

const event = (books: FeedBook[], state: FeedEvent["state"] = "SCHEDULED"): FeedEvent => ({
  eventID: "afl_2026-11-22_collingwood_vs_carlton",
  type: "match",
  startsAt: new Date("2026-11-22T04:40:00Z"),
  state,
  periodsStarted: [],
  periodsEnded: [],
  home: {
    teamID: "COLLINGWOOD_MAGPIES_AFL",
    long: "Collingwood Magpies",
    medium: "Collingwood",
    short: "COL",
    primaryColor: "#000000",
    secondaryColor: "#FFFFFF",
  },
  away: {
    teamID: "CARLTON_BLUES_AFL",
    long: "Carlton Blues",
    medium: "Carlton",
    short: "CAR",
    primaryColor: "#0E1E2D",
    secondaryColor: "#FFFFFF",
  },
  players: [
    {
      playerID: "NICK_DAICOS_1_AFL",
      teamID: "COLLINGWOOD_MAGPIES_AFL",
      name: "Nick Daicos",
      firstName: "Nick",
      lastName: "Daicos",
      position: "Midfielder",
      jerseyNumber: 35,
    },
  ],
  results: {},
  books,
});

const snapshot = (sourceID: string, events: FeedEvent[], lastWriteAt = at): FeedSnapshot => ({
  sourceID,
  leagues: [
    {
      leagueID: "AFL",
      sportID: "AUSSIE_RULES",
      sportName: "Australian Rules Football",
      sportShortName: "Aussie Rules",
      name: "Australian Football League",
      shortName: "AFL",
      lastWriteAt,
      events,
    },
  ],
});

const options = { fairOddsBookmakers: ["pinnacle", "betfair_ex_au"] };

describe("normalising a cycle", () => {
  test("a bookmaker arriving through two sources shows the higher-ranked source's prices; history gets both", () => {
    const low = snapshot("aggregator", [
      event([book("betfair_ex_au", moneyline(2.1, 1.8)), book("sportsbet", moneyline(2, 1.8))]),
    ]);
    const high = snapshot("stream", [event([book("betfair_ex_au", moneyline(2.2, 1.75))])]);
    const cycle = normaliseCycle(
      [
        { sourceID: "aggregator", rank: 10, snapshot: low },
        { sourceID: "stream", rank: 20, snapshot: high },
      ],
      options,
    );
    const odds = cycle.events[0]?.odds["points-home-game-ml-home"];
    expect(odds?.byBookmaker.betfair_ex_au?.decimal).toBe(2.2);
    expect(odds?.byBookmaker.betfair_ex_au?.odds).toBe("+120");
    expect(cycle.observations.map((o) => [o.bookmakerID, o.sourceID, o.sourceRank]).sort()).toEqual([
      ["betfair_ex_au", "aggregator", 10],
      ["betfair_ex_au", "stream", 20],
      ["sportsbet", "aggregator", 10],
    ]);
    expect(cycle.events[0]?.info.sourceBookmakerCount).toBe(3);
    expect(cycle.events[0]?.info.bookmakersPresent).toEqual(["betfair_ex_au", "sportsbet"]);
  });

  test("prices each side: consensus vig included, fair de-vigged from the sharp bookmaker", () => {
    const cycle = normaliseCycle(
      [
        {
          sourceID: "s",
          rank: 1,
          snapshot: snapshot("s", [
            event([
              book("pinnacle", moneyline(1.8, 2.1)),
              book("sportsbet", moneyline(1.7, 2.1)),
              book("tab", moneyline(1.75, 2.05)),
            ]),
          ]),
        },
      ],
      options,
    );
    const home = cycle.events[0]?.odds["points-home-game-ml-home"];
    expect(home?.bookOdds).toBe("-133"); // median decimal 1.75
    expect(home?.bookOddsAvailable).toBe(true);
    expect(home?.fairOddsAvailable).toBe(true);
    const p = 1 / 1.8 / (1 / 1.8 + 1 / 2.1);
    expect(home?.fairOdds).toBe(`-${Math.round(100 / (1 / p - 1))}`);
    expect(home?.opposingOddID).toBe("points-away-game-ml-away");
    expect(home?.marketName).toBe("Moneyline");
  });

  test("without a sharp bookmaker the fair price is the de-vigged consensus and fairOddsAvailable is false", () => {
    const cycle = normaliseCycle(
      [{ sourceID: "s", rank: 1, snapshot: snapshot("s", [event([book("sportsbet", moneyline(1.9, 1.9))])]) }],
      options,
    );
    const home = cycle.events[0]?.odds["points-home-game-ml-home"];
    expect(home?.fairOddsAvailable).toBe(false);
    expect(home?.fairOdds).toBe("+100");
  });

  test("main lines feed consensus lines and history; alternate lines only the event's altLines", () => {
    const spread = (side: "HOME" | "AWAY", line: number, decimal: number, mainLine: boolean) =>
      quote({ entity: side, side, betType: "SP", line, decimal, mainLine });
    const books = [
      book("sportsbet", [
        spread("HOME", -6.5, 1.9, true),
        spread("AWAY", 6.5, 1.9, true),
        spread("HOME", -12.5, 2.5, false),
        spread("AWAY", 12.5, 1.5, false),
      ]),
      book("tab", [spread("HOME", -7.5, 2, true), spread("AWAY", 7.5, 1.8, true)]),
    ];
    const cycle = normaliseCycle([{ sourceID: "s", rank: 1, snapshot: snapshot("s", [event(books)]) }], options);
    const home = cycle.events[0]?.odds["points-home-game-sp-home"];
    expect(home?.bookSpread).toBe("-7.5");
    expect(home?.byBookmaker.sportsbet?.spread).toBe("-6.5");
    expect(home?.altLines["-12.5"]?.sportsbet?.decimal).toBe(2.5);
    expect(cycle.events[0]?.odds["points-away-game-sp-away"]?.bookSpread).toBe("+6.5");
    const sportsbet = cycle.observations.find((o) => o.bookmakerID === "sportsbet");
    expect(sportsbet?.quotes.map((q) => [q.oddID, q.line, q.isMainLine])).toEqual([
      ["points-home-game-sp-home", -6.5, true],
      ["points-away-game-sp-away", 6.5, true],
    ]);
  });

  test("suspended sides stay listed as unavailable; an event whose quotes were withdrawn has no odds", () => {
    const suspended = normaliseCycle(
      [{ sourceID: "s", rank: 1, snapshot: snapshot("s", [event([book("sportsbet", moneyline(1.9, 1.9, true))])]) }],
      options,
    );
    expect(suspended.events[0]?.odds["points-home-game-ml-home"]?.bookOddsAvailable).toBe(false);
    expect(suspended.events[0]?.status.oddsPresent).toBe(true);
    expect(suspended.events[0]?.status.oddsAvailable).toBe(false);

    const ended = normaliseCycle(
      [{ sourceID: "s", rank: 1, snapshot: snapshot("s", [event([book("sportsbet", [])], "FINAL")]) }],
      options,
    );
    expect(ended.events[0]?.status).toMatchObject({
      ended: true,
      finalized: true,
      oddsPresent: false,
      oddsAvailable: false,
    });
    expect(ended.observations).toEqual([expect.objectContaining({ bookmakerID: "sportsbet", quotes: [] })]);
  });

  test("info.lastUpdatedAt is the league's last source write, the latest over sources", () => {
    const quiet = new Date(at.getTime() - 50 * 60_000);
    const cycle = normaliseCycle(
      [
        { sourceID: "a", rank: 1, snapshot: snapshot("a", [event([])], quiet) },
        { sourceID: "b", rank: 2, snapshot: snapshot("b", [event([])], new Date(quiet.getTime() + 1000)) },
      ],
      options,
    );
    expect(cycle.events[0]?.info.lastUpdatedAtMs).toBe(quiet.getTime() + 1000);
  });

  test("feed separators become underscores; quotes that still do not fit the grammar are left out and counted", () => {
    expect(normaliseQuote(quote({ period: "1-Q" }))?.oddID).toBe("points-home-1_q-ml-home");
    expect(normaliseQuote(quote({ entity: "Nick Daicos" }))).toBeUndefined();
    expect(normaliseQuote(quote({ side: " - " }))).toBeUndefined();
    expect(normaliseQuote(quote({ decimal: 1 }))).toBeUndefined();
    const cycle = normaliseCycle(
      [
        {
          sourceID: "s",
          rank: 1,
          snapshot: snapshot("s", [event([book("sportsbet", [...moneyline(1.9, 1.9), quote({ side: "" })])])]),
        },
      ],
      options,
    );
    expect(cycle.rejectedQuotes).toBe(1);
    expect(Object.keys(cycle.events[0]?.odds ?? {})).toHaveLength(2);
    expect(
      observeSnapshot({
        sourceID: "s",
        rank: 1,
        snapshot: snapshot("s", [event([book("tab", [quote({ stat: "?" })])])]),
      }).rejectedQuotes,
    ).toBe(1);
  });

  test("the catalogue carries sports, leagues, teams with contrast colours, players with their events, and stats", () => {
    const cycle = normaliseCycle(
      [{ sourceID: "s", rank: 1, snapshot: snapshot("s", [event([book("sportsbet", moneyline(1.9, 1.9))])]) }],
      options,
    );
    expect(cycle.catalogue.sports).toEqual([
      { sportID: "AUSSIE_RULES", name: "Australian Rules Football", shortName: "Aussie Rules" },
    ]);
    expect(cycle.catalogue.teams.map((t) => [t.teamID, t.statEntityID, t.colors.primaryContrast])).toEqual([
      ["CARLTON_BLUES_AFL", "away", "#FFFFFF"],
      ["COLLINGWOOD_MAGPIES_AFL", "home", "#FFFFFF"],
    ]);
    expect(cycle.catalogue.players[0]).toMatchObject({
      playerID: "NICK_DAICOS_1_AFL",
      eventIDs: ["afl_2026-11-22_collingwood_vs_carlton"],
    });
    expect(cycle.catalogue.stats.map((s) => s.statID)).toEqual(["points"]);
    expect(cycle.catalogue.events[0]?.markets.map((m) => m.oddID).sort()).toEqual([
      "points-away-game-ml-away",
      "points-home-game-ml-home",
    ]);
  });

  test("contrast colours are black on light and white on dark", () => {
    expect(contrastColor("#FFD200")).toBe("#000000");
    expect(contrastColor("#002B5C")).toBe("#FFFFFF");
    expect(contrastColor("not-a-colour")).toBe("#FFFFFF");
  });
});
