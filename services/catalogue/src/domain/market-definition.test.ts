import { oddId } from "@odds/proto";
import {
  deriveMarket,
  entityKind,
  marketGroupID,
  parseOddID,
  periodName,
  type MarketDefinition,
} from "./market-definition";

describe("market derivation from the oddID", () => {
  test("decomposes the five slots and rejects other shapes", () => {
    expect(parseOddID("points-home-game-ml-home")).toEqual({
      statID: "points",
      statEntityID: "home",
      periodID: "game",
      betTypeID: "ml",
      sideID: "home",
    });
    expect(parseOddID("points-home-game-ml")).toBeUndefined();
    expect(parseOddID("points--game-ml-home")).toBeUndefined();
    expect(deriveMarket("not-an-oddid")).toBeUndefined();
  });

  test("full-game points moneyline, spread and total are main markets and not props", () => {
    for (const oddID of ["points-home-game-ml-home", "points-away-game-sp-away", "points-all-game-ou-over"]) {
      const market = deriveMarket(oddID)!;
      expect(market).toMatchObject({ isMainMarket: true, isMainDerivative: false, isSubPeriod: false, isProp: false });
      expect(market.propType).toBeUndefined();
    }
  });

  test("a sub-period of a main market is a main derivative and a sub-period, not a main market", () => {
    expect(deriveMarket("points-all-1h-ou-under")).toMatchObject({
      isMainMarket: false,
      isMainDerivative: true,
      isSubPeriod: true,
      isProp: false,
    });
  });

  test("team totals, other stats and other bet types are props typed by their entity", () => {
    expect(deriveMarket("points-home-game-ou-over")).toMatchObject({ isProp: true, propType: "team_prop" });
    expect(deriveMarket("tries-all-game-ou-over")).toMatchObject({ isProp: true, propType: "game_prop" });
    expect(deriveMarket("points-all-game-ml3way-draw")).toMatchObject({ isProp: true, propType: "game_prop" });
    // The home side of a three-way moneyline belongs to the game-level market, like the draw.
    expect(deriveMarket("points-home-game-ml3way-home")).toMatchObject({ isProp: true, propType: "game_prop" });
    expect(deriveMarket("disposals-JOHN_SMITH_1_AFL-game-ou-over")).toMatchObject({
      isProp: true,
      propType: "player_prop",
      playerID: "JOHN_SMITH_1_AFL",
    });
    expect(deriveMarket("winner-SYDNEY_SWANS_AFL-season-yn-yes")).toMatchObject({
      isProp: true,
      propType: "team_prop",
      teamID: "SYDNEY_SWANS_AFL",
      isSubPeriod: true,
    });
    expect(deriveMarket("points-field-game-yn-yes")).toMatchObject({ isProp: true, propType: "other_prop" });
  });

  test("ingest hints decide whether an entity is a player or a team", () => {
    expect(entityKind("JONES_AFL", { playerID: "JONES_AFL" })).toBe("player");
    expect(entityKind("TEAM_1_X", { teamID: "TEAM_1_X" })).toBe("team");
    expect(entityKind("away")).toBe("side");
  });

  test("both sides of a market share one group id and one group name", () => {
    const home = deriveMarket("points-home-game-ml-home")!;
    const away = deriveMarket("points-away-game-ml-away")!;
    expect(home.marketGroupID).toBe("points-all-game-ml");
    expect(away.marketGroupID).toBe(home.marketGroupID);
    expect(away.marketGroupName).toBe(home.marketGroupName);
    expect(home.marketGroupName).toBe("Points Moneyline");
    expect(deriveMarket("points-all-1q-ou-over")!.marketGroupName).toBe("Points Over/Under (1st Quarter)");
    expect(marketGroupID(parseOddID("points-home-game-ou-under")!)).toBe("points-home-game-ou");
    expect(deriveMarket("points-home-game-ou-under")!.marketGroupName).toBe("Home Points Over/Under");
  });

  test("a player prop's group name uses the player's name when ingest knows it", () => {
    const market = deriveMarket("goals-JOHN_SMITH_1_AFL-game-ou-over", {
      playerID: "JOHN_SMITH_1_AFL",
      playerName: "John Smith",
    })!;
    expect(market.marketGroupName).toBe("John Smith Goals Over/Under");
  });

  test("the group name uses the stat's display name when it is known", () => {
    expect(deriveMarket("bothteamstoscore-all-game-yn-yes", { statName: "Both Teams To Score" })!.marketGroupName).toBe(
      "Both Teams To Score Yes/No",
    );
    expect(deriveMarket("bothteamstoscore-all-game-yn-yes")!.marketGroupName).toBe("Bothteamstoscore Yes/No");
  });

  test("period names read as words", () => {
    expect(periodName("1h")).toBe("1st Half");
    expect(periodName("2q")).toBe("2nd Quarter");
    expect(periodName("1ix5")).toBe("First 5 Innings");
    expect(periodName("weird")).toBe("WEIRD");
  });

  test("the PLAYER_ID wildcard in an oddID filter matches every player prop with the other slots equal", () => {
    const prop = deriveMarket("disposals-JOHN_SMITH_1_AFL-game-ou-over")!;
    const wanted = (market: MarketDefinition, pattern: string) => oddId.oddIDFilter([pattern])(market.oddID);
    expect(wanted(prop, "disposals-PLAYER_ID-game-ou-over")).toBe(true);
    expect(wanted(prop, "disposals-PLAYER_ID-game-ou-under")).toBe(false);
    expect(wanted(deriveMarket("disposals-all-game-ou-over")!, "disposals-PLAYER_ID-game-ou-over")).toBe(false);
    expect(wanted(prop, "disposals-JOHN_SMITH_1_AFL-game-ou-over")).toBe(true);
  });
});
