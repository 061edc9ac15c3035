import { oddId } from "@odds/proto";
import { toStatEntityID, toToken } from "./odd-id";

const { formatOddID, InvalidOddIdError, isPlayerEntity, marketGroupID, opposingOddID, parseOddID } = oddId;

describe("oddID grammar", () => {
  test("formats and parses the five slots", () => {
    const parts = { statID: "points", statEntityID: "home", periodID: "1q", betTypeID: "sp", sideID: "home" };
    expect(formatOddID(parts)).toBe("points-home-1q-sp-home");
    expect(parseOddID("points-home-1q-sp-home")).toEqual(parts);
  });

  test("a player prop keeps the feed's upper-case playerID in the statEntityID slot", () => {
    const oddID = formatOddID({
      statID: "disposals",
      statEntityID: "NICK_DAICOS_1_AFL",
      periodID: "game",
      betTypeID: "ou",
      sideID: "over",
    });
    expect(oddID).toBe("disposals-NICK_DAICOS_1_AFL-game-ou-over");
    expect(isPlayerEntity(parseOddID(oddID).statEntityID)).toBe(true);
    expect(isPlayerEntity("home")).toBe(false);
  });

  test("feed tokens are lower-cased; entity classes too, but player IDs keep their case", () => {
    expect(toToken("ML3WAY")).toBe("ml3way");
    expect(toToken(" Both Teams-To Score ")).toBe("both_teams_to_score");
    expect(toStatEntityID("HOME")).toBe("home");
    expect(toStatEntityID("ALL")).toBe("all");
    expect(toStatEntityID("NICK_DAICOS_1_AFL")).toBe("NICK_DAICOS_1_AFL");
  });

  test("clean tokens take a shortcut that answers what the full rewrite answers", () => {
    const rewrite = (token: string) =>
      token
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_|_$/g, "");
    for (const token of [
      "ML3WAY",
      "points",
      "NICK_DAICOS_1_AFL",
      "a__b",
      "_home",
      "away_",
      "1Q",
      " Both Teams-To Score ",
      "over/under",
      "Ünder",
      "",
      "_",
    ]) {
      expect(toToken(token)).toBe(rewrite(token));
    }
  });

  test.each([
    ["points-home-game-ml"],
    ["points-home-game-ml-home-x"],
    ["Points-home-game-ml-home"],
    ["points-home-game-ml-"],
    [""],
  ])("%p is not an oddID", (oddID) => {
    expect(() => parseOddID(oddID)).toThrow(InvalidOddIdError);
  });

  test("a hyphen inside a token is refused (it is the slot separator)", () => {
    expect(() =>
      formatOddID({ statID: "points", statEntityID: "home", periodID: "1-q", betTypeID: "ml", sideID: "home" }),
    ).toThrow(InvalidOddIdError);
  });
});

describe("markets and opposing sides", () => {
  test("moneyline and spread sides of both participants form one market", () => {
    expect(marketGroupID(parseOddID("points-home-game-ml-home"))).toBe("points-all-game-ml");
    expect(marketGroupID(parseOddID("points-away-game-ml-away"))).toBe("points-all-game-ml");
    expect(marketGroupID(parseOddID("points-home-game-ou-over"))).toBe("points-home-game-ou");
    expect(marketGroupID(parseOddID("points-all-game-ou-over"))).toBe("points-all-game-ou");
  });

  test("the opposing side of a participant market swaps the entity with the side", () => {
    expect(opposingOddID(parseOddID("points-home-game-ml-home"), 2)).toBe("points-away-game-ml-away");
    expect(opposingOddID(parseOddID("points-away-1h-sp-away"), 2)).toBe("points-home-1h-sp-home");
  });

  test("over/under, yes/no and odd/even sides oppose each other on the same entity", () => {
    expect(opposingOddID(parseOddID("points-all-game-ou-over"), 2)).toBe("points-all-game-ou-under");
    expect(opposingOddID(parseOddID("goals-NICK_DAICOS_1_AFL-game-yn-yes"), 2)).toBe(
      "goals-NICK_DAICOS_1_AFL-game-yn-no",
    );
    expect(opposingOddID(parseOddID("points-all-game-eo-even"), 2)).toBe("points-all-game-eo-odd");
  });

  test("pick-N and three-way markets have no opposing side", () => {
    expect(opposingOddID(parseOddID("margin-all-game-pick-home1to39"), 5)).toBeUndefined();
    expect(opposingOddID(parseOddID("points-home-game-ml3way-home"), 3)).toBeUndefined();
    expect(opposingOddID(parseOddID("points-all-game-ml3way-draw"), 3)).toBeUndefined();
  });
});
