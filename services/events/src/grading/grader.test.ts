import { gradeMarket, lineBet, type GradedMarket, type Results, type Settlement } from "./grader";

const ENDED = { periodEnded: true, cancelled: false };

function market(statID: string, betTypeID: string, sides: [string, string, number | null][], periodID = "game") {
  return {
    statID,
    periodID,
    betTypeID,
    sides: sides.map(([statEntityID, sideID, line]) => ({
      oddID: `${statID}-${statEntityID}-${periodID}-${betTypeID}-${sideID}`,
      statEntityID,
      sideID,
      line,
    })),
  } satisfies GradedMarket;
}

function verdicts(graded: Map<string, Settlement> | undefined): Record<string, string> {
  if (!graded) return {};
  return Object.fromEntries(
    [...graded].map(([oddID, s]) => [
      oddID.split("-").slice(1, 2).concat(oddID.split("-").slice(-1)).join(":"),
      s.verdict + (s.voidFraction ? `+void${s.voidFraction}` : "") + (s.deadHeatFactor ? `x${s.deadHeatFactor}` : ""),
    ]),
  );
}

const score = (home: number, away: number, periodID = "game"): Results => ({
  [periodID]: { home: { points: home }, away: { points: away } },
});

describe("grader: moneylines", () => {
  const ml = market("points", "ml", [
    ["home", "home", null],
    ["away", "away", null],
  ]);

  test("the higher score wins, the other loses", () => {
    expect(verdicts(gradeMarket(ml, score(90, 72), ENDED))).toEqual({ "home:home": "won", "away:away": "lost" });
    expect(verdicts(gradeMarket(ml, score(60, 72), ENDED))).toEqual({ "home:home": "lost", "away:away": "won" });
  });

  test("a draw voids a two-way moneyline", () => {
    expect(verdicts(gradeMarket(ml, score(80, 80), ENDED))).toEqual({ "home:home": "void", "away:away": "void" });
  });

  test("pending until the period ends; every outcome void when the event is cancelled", () => {
    expect(gradeMarket(ml, score(10, 0), { periodEnded: false, cancelled: false })).toBeUndefined();
    expect(verdicts(gradeMarket(ml, {}, { periodEnded: false, cancelled: true }))).toEqual({
      "home:home": "void",
      "away:away": "void",
    });
  });

  test("3-way: home, draw or away, exactly one wins", () => {
    const threeWay = market("points", "ml3way", [
      ["home", "home", null],
      ["all", "draw", null],
      ["away", "away", null],
    ]);
    expect(verdicts(gradeMarket(threeWay, score(1, 1), ENDED))).toEqual({
      "home:home": "lost",
      "all:draw": "won",
      "away:away": "lost",
    });
    expect(verdicts(gradeMarket(threeWay, score(2, 1), ENDED))["home:home"]).toBe("won");
  });

  test("a sub-period market settles on its own period's results", () => {
    const firstQuarter = market(
      "points",
      "ml",
      [
        ["home", "home", null],
        ["away", "away", null],
      ],
      "1q",
    );
    const results = { ...score(20, 30, "1q"), ...score(100, 50) };
    expect(verdicts(gradeMarket(firstQuarter, results, ENDED))).toEqual({ "home:home": "lost", "away:away": "won" });
  });
});

describe("grader: spreads and totals", () => {
  test("spread: the line is added to the side's score; level is a push, so void", () => {
    const spread = (line: number) =>
      market("points", "sp", [
        ["home", "home", line],
        ["away", "away", -line],
      ]);
    expect(verdicts(gradeMarket(spread(-6.5), score(90, 80), ENDED))).toEqual({
      "home:home": "won",
      "away:away": "lost",
    });
    expect(verdicts(gradeMarket(spread(-10), score(90, 80), ENDED))).toEqual({
      "home:home": "void",
      "away:away": "void",
    });
    expect(verdicts(gradeMarket(spread(-12.5), score(90, 80), ENDED))).toEqual({
      "home:home": "lost",
      "away:away": "won",
    });
  });

  test("totals: over and under against the line; on the line both void", () => {
    const total = (line: number) =>
      market("points", "ou", [
        ["all", "over", line],
        ["all", "under", line],
      ]);
    expect(verdicts(gradeMarket(total(165.5), score(90, 80), ENDED))).toEqual({
      "all:over": "won",
      "all:under": "lost",
    });
    expect(verdicts(gradeMarket(total(170), score(90, 80), ENDED))).toEqual({
      "all:over": "void",
      "all:under": "void",
    });
  });

  test("quarter lines split the stake: half won and half void, or half lost and half void", () => {
    expect(lineBet(0.25)).toEqual({ verdict: "won", deadHeatFactor: null, voidFraction: 0.5 });
    expect(lineBet(-0.25)).toEqual({ verdict: "lost", deadHeatFactor: null, voidFraction: 0.5 });
    expect(lineBet(0.75).verdict).toBe("won");
    expect(lineBet(-0.75)).toEqual({ verdict: "lost", deadHeatFactor: null, voidFraction: 0 });
    const quarter = market("points", "sp", [
      ["home", "home", -10.25],
      ["away", "away", 10.25],
    ]);
    expect(verdicts(gradeMarket(quarter, score(90, 80), ENDED))).toEqual({
      "home:home": "lost+void0.5",
      "away:away": "won+void0.5",
    });
    const total = market("goals", "ou", [
      ["all", "over", 2.75],
      ["all", "under", 2.75],
    ]);
    const goals = { game: { home: { goals: 2 }, away: { goals: 1 } } };
    expect(verdicts(gradeMarket(total, goals, ENDED))).toEqual({
      "all:over": "won+void0.5",
      "all:under": "lost+void0.5",
    });
  });
});

describe("grader: yes/no, odd/even, pick-N bands", () => {
  test("yes/no: both teams to score derives from each team's points", () => {
    const btts = market("bothteamstoscore", "yn", [
      ["all", "yes", null],
      ["all", "no", null],
    ]);
    expect(verdicts(gradeMarket(btts, score(1, 1), ENDED))).toEqual({ "all:yes": "won", "all:no": "lost" });
    expect(verdicts(gradeMarket(btts, score(2, 0), ENDED))).toEqual({ "all:yes": "lost", "all:no": "won" });
  });

  test("odd/even on the total", () => {
    const eo = market("points", "eo", [
      ["all", "odd", null],
      ["all", "even", null],
    ]);
    expect(verdicts(gradeMarket(eo, score(90, 81), ENDED))).toEqual({ "all:odd": "won", "all:even": "lost" });
    expect(verdicts(gradeMarket(eo, score(0, 0), ENDED))).toEqual({ "all:odd": "lost", "all:even": "won" });
  });

  test("pick-N margin bands: exactly the band holding the final margin wins", () => {
    const bands = market("margin", "pick", [
      ["all", "home1to39", null],
      ["all", "home40plus", null],
      ["all", "draw", null],
      ["all", "away1to39", null],
      ["all", "away40plus", null],
    ]);
    expect(verdicts(gradeMarket(bands, score(100, 60), ENDED))).toEqual({
      "all:home1to39": "lost",
      "all:home40plus": "won",
      "all:draw": "lost",
      "all:away1to39": "lost",
      "all:away40plus": "lost",
    });
    expect(verdicts(gradeMarket(bands, score(70, 71), ENDED))["all:away1to39"]).toBe("won");
    expect(verdicts(gradeMarket(bands, score(70, 70), ENDED))["all:draw"]).toBe("won");
  });

  test("pick-N among players: the top value wins; a tie is a dead heat scaled by 1 / winners", () => {
    const topScorer = market("goals", "pick", [
      ["all", "a_1_afl", null],
      ["all", "b_2_afl", null],
      ["all", "c_3_afl", null],
    ]);
    const results = { game: { A_1_AFL: { goals: 3 }, B_2_AFL: { goals: 3 }, C_3_AFL: { goals: 1 } } };
    expect(verdicts(gradeMarket(topScorer, results, ENDED))).toEqual({
      "all:a_1_afl": "dead_heatx0.5",
      "all:b_2_afl": "dead_heatx0.5",
      "all:c_3_afl": "lost",
    });
  });
});

describe("grader: player props", () => {
  const player = "NICK_DAICOS_1_AFL";
  const disposals = market("disposals", "ou", [
    [player, "over", 24.5],
    [player, "under", 24.5],
  ]);
  const goals = market("goals", "yn", [
    [player, "yes", null],
    [player, "no", null],
  ]);

  test("settle on the player's own result", () => {
    const results = { game: { [player]: { disposals: 31, goals: 0 }, home: { points: 80 } } };
    expect(verdicts(gradeMarket(disposals, results, ENDED))).toEqual({
      [`${player}:over`]: "won",
      [`${player}:under`]: "lost",
    });
    expect(verdicts(gradeMarket(goals, results, ENDED))).toEqual({
      [`${player}:yes`]: "lost",
      [`${player}:no`]: "won",
    });
  });

  test("a withdrawn player (no result once the game ended) voids the prop", () => {
    const results = { game: { home: { points: 80 }, away: { points: 70 } } };
    expect(verdicts(gradeMarket(disposals, results, ENDED))).toEqual({
      [`${player}:over`]: "void",
      [`${player}:under`]: "void",
    });
    expect(verdicts(gradeMarket(goals, results, ENDED))[`${player}:yes`]).toBe("void");
  });
});

describe("grader: tennis (competitor_1 is home)", () => {
  // 6-4 3-6 7-6: competitor 1 wins two sets to one, 16 games to 16.
  const match: Results = {
    "1s": { home: { points: 6 }, away: { points: 4 } },
    "2s": { home: { points: 3 }, away: { points: 6 } },
    "3s": { home: { points: 7 }, away: { points: 6 } },
    game: { home: { points: 2, games: 16 }, away: { points: 1, games: 16 } },
  };

  test("match winner on sets won", () => {
    const ml = market("points", "ml", [
      ["home", "home", null],
      ["away", "away", null],
    ]);
    expect(verdicts(gradeMarket(ml, match, ENDED))).toEqual({ "home:home": "won", "away:away": "lost" });
  });

  test("set betting: exactly the sets score wins", () => {
    const sets = market("points", "cs", [
      ["all", "2_0", null],
      ["all", "2_1", null],
      ["all", "1_2", null],
      ["all", "0_2", null],
    ]);
    expect(verdicts(gradeMarket(sets, match, ENDED))).toEqual({
      "all:2_0": "lost",
      "all:2_1": "won",
      "all:1_2": "lost",
      "all:0_2": "lost",
    });
    expect(verdicts(gradeMarket(sets, {}, ENDED))).toEqual({
      "all:2_0": "void",
      "all:2_1": "void",
      "all:1_2": "void",
      "all:0_2": "void",
    });
  });

  test("total games: over and under the line on both players' games; on a whole line, void", () => {
    const total = (line: number) =>
      market("games", "ou", [
        ["all", "over", line],
        ["all", "under", line],
      ]);
    expect(verdicts(gradeMarket(total(22.5), match, ENDED))).toEqual({ "all:over": "won", "all:under": "lost" });
    expect(verdicts(gradeMarket(total(32.5), match, ENDED))).toEqual({ "all:over": "lost", "all:under": "won" });
    expect(verdicts(gradeMarket(total(32), match, ENDED))).toEqual({ "all:over": "void", "all:under": "void" });
  });

  test("game handicap: games won plus the line against the other player's games", () => {
    const handicap = market("games", "sp", [
      ["home", "home", -1.5],
      ["away", "away", 1.5],
    ]);
    expect(verdicts(gradeMarket(handicap, match, ENDED))).toEqual({ "home:home": "lost", "away:away": "won" });
    const level = market("games", "sp", [
      ["home", "home", 0],
      ["away", "away", 0],
    ]);
    expect(verdicts(gradeMarket(level, match, ENDED))).toEqual({ "home:home": "void", "away:away": "void" });
  });
});

describe("grader: MMA (competitor_1 is home)", () => {
  // Competitor 2 by submission 2:30 into round 2.
  const fight: Results = {
    game: { home: { points: 0 }, away: { points: 1, submission: 1 }, all: { rounds: 1.5, distance: 0 } },
  };
  const draw: Results = {
    game: { home: { points: 0 }, away: { points: 0 }, all: { rounds: 3, distance: 1 } },
  };
  const method = market(
    "method",
    "pick",
    ["home", "away"].flatMap((side) =>
      ["ko", "submission", "decision"].map((how): [string, string, null] => ["all", `${side}_${how}`, null]),
    ),
  );

  test("fight winner; a draw voids it", () => {
    const ml = market("points", "ml", [
      ["home", "home", null],
      ["away", "away", null],
    ]);
    expect(verdicts(gradeMarket(ml, fight, ENDED))).toEqual({ "home:home": "lost", "away:away": "won" });
    expect(verdicts(gradeMarket(ml, draw, ENDED))).toEqual({ "home:home": "void", "away:away": "void" });
  });

  test("method of victory: only the winner's method wins; a draw voids every outcome", () => {
    expect(verdicts(gradeMarket(method, fight, ENDED))).toEqual({
      "all:home_ko": "lost",
      "all:home_submission": "lost",
      "all:home_decision": "lost",
      "all:away_ko": "lost",
      "all:away_submission": "won",
      "all:away_decision": "lost",
    });
    expect(new Set(Object.values(verdicts(gradeMarket(method, draw, ENDED))))).toEqual(new Set(["void"]));
  });

  test("total rounds on the fight time: 1.5 rounds is exactly the line, so a 1.5 line is void, 2.5 under", () => {
    const rounds = (line: number) =>
      market("rounds", "ou", [
        ["all", "over", line],
        ["all", "under", line],
      ]);
    expect(verdicts(gradeMarket(rounds(2.5), fight, ENDED))).toEqual({ "all:over": "lost", "all:under": "won" });
    expect(verdicts(gradeMarket(rounds(1.5), fight, ENDED))).toEqual({ "all:over": "void", "all:under": "void" });
    expect(verdicts(gradeMarket(rounds(2.5), draw, ENDED))).toEqual({ "all:over": "won", "all:under": "lost" });
  });

  test("goes the distance: yes only when the fight reached the judges", () => {
    const distance = market("distance", "yn", [
      ["all", "yes", null],
      ["all", "no", null],
    ]);
    expect(verdicts(gradeMarket(distance, fight, ENDED))).toEqual({ "all:yes": "lost", "all:no": "won" });
    expect(verdicts(gradeMarket(distance, draw, ENDED))).toEqual({ "all:yes": "won", "all:no": "lost" });
  });
});
