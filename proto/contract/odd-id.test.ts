import { matchesOddIDPattern, oddIDFilter, splitOddID } from "./odd-id";

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
