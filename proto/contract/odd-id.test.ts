import {
  formatOddID,
  InvalidOddIdError,
  matchesOddIDPattern,
  memoisedOddIDs,
  ODD_ID_MEMO_SIZE,
  oddIDFilter,
  parseOddID,
  splitOddID,
} from "./odd-id";

describe("oddID filters", () => {
  test("an exact entry matches only that oddID", () => {
    expect(matchesOddIDPattern("points-home-game-ml-home", "points-home-game-ml-home")).toBe(true);
    expect(matchesOddIDPattern("points-home-game-ml-home", "points-away-game-ml-away")).toBe(false);
  });

  test("PLAYER_ID in the statEntityID slot matches every player on the same stat, period, bet type and side", () => {
    expect(matchesOddIDPattern("disposals-PLAYER_ID-game-ou-over", "disposals-NICK_DAICOS_1_AFL-game-ou-over")).toBe(
      true,
    );
    expect(matchesOddIDPattern("disposals-PLAYER_ID-game-ou-over", "disposals-NICK_DAICOS_1_AFL-game-ou-under")).toBe(
      false,
    );
    expect(matchesOddIDPattern("disposals-PLAYER_ID-game-ou-over", "goals-NICK_DAICOS_1_AFL-game-ou-over")).toBe(false);
  });

  test("the PLAYER_ID wildcard matches neither team sides nor team IDs", () => {
    expect(matchesOddIDPattern("points-PLAYER_ID-game-ou-over", "points-home-game-ou-over")).toBe(false);
    expect(matchesOddIDPattern("points-PLAYER_ID-game-ou-over", "points-all-game-ou-over")).toBe(false);
    expect(matchesOddIDPattern("points-PLAYER_ID-game-ou-over", "points-COLLINGWOOD_MAGPIES_AFL-game-ou-over")).toBe(
      false,
    );
  });

  test("a request's filter list: empty matches all, otherwise any entry", () => {
    expect(oddIDFilter([])("anything-at-all-x-y")).toBe(true);
    const filter = oddIDFilter(["points-home-game-ml-home", "tries-PLAYER_ID-game-yn-yes"]);
    expect(filter("points-home-game-ml-home")).toBe(true);
    expect(filter("tries-NATHAN_CLEARY_7_NRL-game-yn-yes")).toBe(true);
    expect(filter("points-away-game-ml-away")).toBe(false);
  });

  test("malformed entries never match anything else", () => {
    expect(splitOddID("points-home-game-ml")).toBeUndefined();
    expect(splitOddID("points--game-ml-home")).toBeUndefined();
    expect(oddIDFilter(["PLAYER_ID"])("disposals-NICK_DAICOS_1_AFL-game-ou-over")).toBe(false);
  });
});

describe("validated oddIDs are memoised", () => {
  const parts = {
    statID: "disposals",
    statEntityID: "NICK_DAICOS_1_AFL",
    periodID: "game",
    betTypeID: "ou",
    sideID: "over",
  };

  test("a parsed oddID's parts are shared and frozen: a caller cannot change them for the next one", () => {
    const oddID = formatOddID(parts);
    const first = parseOddID(oddID);
    expect(first).toEqual(parts);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { sideID: string }).sideID = "under";
    }).toThrow(TypeError);
    expect(parseOddID(oddID)).toBe(first);
    expect(parseOddID(oddID).sideID).toBe("over");
  });

  test("formatting does not keep the caller's object: changing it afterwards changes no memoised parts", () => {
    const mine = { statID: "marks", statEntityID: "all", periodID: "1q", betTypeID: "ou", sideID: "under" };
    const oddID = formatOddID(mine);
    mine.sideID = "over";
    expect(parseOddID(oddID).sideID).toBe("under");
  });

  test("invalid slots are refused on every call, memo or not", () => {
    const valid = formatOddID({
      statID: "points",
      statEntityID: "home",
      periodID: "1q",
      betTypeID: "ml",
      sideID: "home",
    });
    expect(parseOddID(valid).statEntityID).toBe("home");
    // The same text as a memoised oddID cannot come from invalid slots: a hyphen adds a slot.
    expect(() =>
      formatOddID({ statID: "points-home", statEntityID: "1q", periodID: "ml", betTypeID: "home", sideID: "" }),
    ).toThrow(InvalidOddIdError);
    expect(() =>
      formatOddID({ statID: "Points", statEntityID: "home", periodID: "1q", betTypeID: "ml", sideID: "home" }),
    ).toThrow(InvalidOddIdError);
    expect(() => parseOddID("points-home-1q-ml")).toThrow(InvalidOddIdError);
    expect(() => parseOddID("points-home-1q-ml-HOME")).toThrow(InvalidOddIdError);
  });

  test("the memo is bounded: past its size the oldest are dropped and still parse the same", () => {
    const first = formatOddID({
      statID: "goals",
      statEntityID: "PLAYER_0_AFL",
      periodID: "game",
      betTypeID: "yn",
      sideID: "yes",
    });
    for (let i = 1; i <= ODD_ID_MEMO_SIZE + 1000; i++) {
      formatOddID({
        statID: "goals",
        statEntityID: `PLAYER_${i}_AFL`,
        periodID: "game",
        betTypeID: "yn",
        sideID: "yes",
      });
    }
    expect(memoisedOddIDs()).toBeLessThanOrEqual(ODD_ID_MEMO_SIZE);
    expect(memoisedOddIDs()).toBeGreaterThanOrEqual(ODD_ID_MEMO_SIZE / 2);
    expect(parseOddID(first)).toEqual({
      statID: "goals",
      statEntityID: "PLAYER_0_AFL",
      periodID: "game",
      betTypeID: "yn",
      sideID: "yes",
    });
  });
});
