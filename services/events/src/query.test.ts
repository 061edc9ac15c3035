import { eventProto, eventQuery, HOUR, NOW } from "../test/fixtures";
import { oddId } from "@odds/proto";
import {
  factsOf,
  FULL_SHAPE,
  isStale,
  type PlanScope,
  planAllowsEvent,
  selectedOddIDs,
  selectsEvent,
  shapeEvent,
  shapeFor,
} from "./query";
import { renderEvent } from "./render";

const ALL: PlanScope = { sportIDs: null, leagueIDs: null, bookmakerIDs: null, fairOdds: true };

const query = eventQuery;

function facts(options: Parameters<typeof eventProto>[0]) {
  return factsOf(renderEvent(eventProto(options)));
}

describe("selectsEvent", () => {
  const upcoming = facts({ eventId: "UP", startsAtMs: NOW + HOUR });
  const old = facts({ eventId: "OLD", startsAtMs: NOW - 25 * HOUR, status: { started: true, ended: true } });

  it("omits events that kicked off more than 24 hours ago without a window, eventID or includeFinished", () => {
    expect(selectsEvent(upcoming, query(), NOW)).toBe(true);
    expect(selectsEvent(old, query(), NOW)).toBe(false);
    expect(selectsEvent(facts({ eventId: "X", startsAtMs: NOW - 23 * HOUR }), query(), NOW)).toBe(true);
  });

  it("lifts the cut-off with includeFinished, a date window or eventIDs", () => {
    expect(selectsEvent(old, query({ includeFinished: true }), NOW)).toBe(true);
    expect(selectsEvent(old, query({ startsBeforeMs: NOW }), NOW)).toBe(true);
    expect(selectsEvent(old, query({ startsAfterMs: NOW - 30 * HOUR }), NOW)).toBe(true);
    expect(selectsEvent(old, query({ eventIDs: ["OLD"] }), NOW)).toBe(true);
  });

  it("treats startsAfter and startsBefore as strict bounds", () => {
    expect(selectsEvent(upcoming, query({ startsAfterMs: NOW + HOUR }), NOW)).toBe(false);
    expect(selectsEvent(upcoming, query({ startsAfterMs: NOW + HOUR - 1 }), NOW)).toBe(true);
    expect(selectsEvent(upcoming, query({ startsBeforeMs: NOW + HOUR }), NOW)).toBe(false);
    expect(selectsEvent(upcoming, query({ startsBeforeMs: NOW + HOUR + 1 }), NOW)).toBe(true);
  });

  it.each(["live", "started", "ended", "finalized", "cancelled"] as const)(
    "filters %s: true keeps only matching, false only non-matching, omitted keeps all",
    (flag) => {
      const on = facts({ eventId: "ON", status: { [flag]: true } });
      const off = facts({ eventId: "OFF" });
      expect([selectsEvent(on, query({ [flag]: true }), NOW), selectsEvent(off, query({ [flag]: true }), NOW)]).toEqual(
        [true, false],
      );
      expect([
        selectsEvent(on, query({ [flag]: false }), NOW),
        selectsEvent(off, query({ [flag]: false }), NOW),
      ]).toEqual([false, true]);
      expect([selectsEvent(on, query(), NOW), selectsEvent(off, query(), NOW)]).toEqual([true, true]);
    },
  );

  it("filters oddsPresent and oddsAvailable from the event's markets", () => {
    const bare = facts({ eventId: "BARE", noOdds: true });
    const suspended = facts({ eventId: "SUSP", suspended: true });
    expect(selectsEvent(bare, query({ oddsPresent: false }), NOW)).toBe(true);
    expect(selectsEvent(suspended, query({ oddsPresent: false }), NOW)).toBe(false);
    expect(selectsEvent(suspended, query({ oddsPresent: true, oddsAvailable: false }), NOW)).toBe(true);
    expect(selectsEvent(upcoming, query({ oddsAvailable: false }), NOW)).toBe(false);
  });

  it("filters sportID, leagueID, type, teamID and playerID lists", () => {
    expect(selectsEvent(upcoming, query({ sportIDs: ["SOCCER", "AUSSIE_RULES"] }), NOW)).toBe(true);
    expect(selectsEvent(upcoming, query({ leagueIDs: ["NRL"] }), NOW)).toBe(false);
    expect(selectsEvent(upcoming, query({ type: "prop" }), NOW)).toBe(false);
    expect(selectsEvent(upcoming, query({ teamIDs: ["NOPE", "CARLTON_BLUES_AFL"] }), NOW)).toBe(true);
    expect(selectsEvent(upcoming, query({ teamIDs: ["RICHMOND_TIGERS_AFL"] }), NOW)).toBe(false);
    expect(selectsEvent(upcoming, query({ playerIDs: ["JOHN_SMITH_1_AFL"] }), NOW)).toBe(true);
    expect(selectsEvent(upcoming, query({ playerIDs: ["JANE_DOE_2_AFL"] }), NOW)).toBe(false);
  });

  it("with eventIDs ignores every other event selector (rule 1)", () => {
    const ignored = query({
      eventIDs: ["OLD"],
      sportIDs: ["SOCCER"],
      leagueIDs: ["EPL"],
      live: true,
      started: false,
      finalized: true,
      startsAfterMs: NOW,
      startsBeforeMs: NOW - 48 * HOUR,
      type: "prop",
      ended: false,
      cancelled: true,
      teamIDs: ["NOPE"],
      playerIDs: ["NOPE"],
      oddsPresent: false,
    });
    expect(selectsEvent(old, ignored, NOW)).toBe(true);
    expect(selectsEvent(upcoming, ignored, NOW)).toBe(false);
  });
});

describe("planAllowsEvent", () => {
  it("limits visible sports and leagues (rule 4)", () => {
    const afl = facts({ eventId: "A" });
    expect(planAllowsEvent(afl, ALL)).toBe(true);
    expect(planAllowsEvent(afl, { ...ALL, leagueIDs: new Set(["NRL"]) })).toBe(false);
    expect(planAllowsEvent(afl, { ...ALL, sportIDs: new Set(["SOCCER"]) })).toBe(false);
    expect(planAllowsEvent(afl, { ...ALL, leagueIDs: new Set(["AFL"]), sportIDs: new Set(["AUSSIE_RULES"]) })).toBe(
      true,
    );
  });
});

describe("odds shaping", () => {
  const contract = renderEvent(eventProto({ eventId: "E" }));

  it("matches any player's prop with PLAYER_ID in the statEntityID slot, and never a team market", () => {
    const prop = contract.odds["disposals-JOHN_SMITH_1_AFL-game-ou-over"]!;
    const wanted = (pattern: string, oddID: string) => oddId.oddIDFilter([pattern])(oddID);
    expect(wanted("disposals-PLAYER_ID-game-ou-over", prop.oddID)).toBe(true);
    expect(wanted("disposals-PLAYER_ID-game-ou-under", prop.oddID)).toBe(false);
    expect(wanted("points-PLAYER_ID-game-ml-home", contract.odds["points-home-game-ml-home"]!.oddID)).toBe(false);
  });

  it("keeps only the requested oddIDs, adding opposing sides with includeOpposingOdds", () => {
    const shape = shapeFor(query({ oddIDs: ["points-home-game-ml-home"] }), ALL);
    expect(selectedOddIDs(contract.odds, shape)).toEqual(["points-home-game-ml-home"]);
    expect(selectedOddIDs(contract.odds, { ...shape, includeOpposingOdds: true })).toEqual([
      "points-away-game-ml-away",
      "points-home-game-ml-home",
    ]);
    const pick = shapeFor(query({ oddIDs: ["firstgoal-all-game-pick-home"], includeOpposingOdds: true }), ALL);
    expect(selectedOddIDs(contract.odds, pick)).toEqual(["firstgoal-all-game-pick-home"]);
  });

  it("keeps only the requested players' sides with playerID", () => {
    const shape = shapeFor(query({ playerIDs: ["JOHN_SMITH_1_AFL"] }), ALL);
    expect(selectedOddIDs(contract.odds, shape)).toEqual([
      "disposals-JOHN_SMITH_1_AFL-game-ou-over",
      "disposals-JOHN_SMITH_1_AFL-game-ou-under",
    ]);
  });

  it("includes altLines only with includeAltLines, filtered to visible bookmakers", () => {
    expect(shapeEvent(contract, FULL_SHAPE).odds["points-all-game-ou-over"]).not.toHaveProperty("altLines");
    const withAlt = shapeEvent(contract, shapeFor(query({ includeAltLines: true }), ALL));
    expect(Object.keys(withAlt.odds["points-all-game-ou-over"]!.altLines!)).toEqual(["160.5", "170.5"]);
    const tabOnly = shapeEvent(contract, shapeFor(query({ includeAltLines: true, bookmakerIDs: ["tab"] }), ALL));
    expect(Object.keys(tabOnly.odds["points-all-game-ou-over"]!.altLines!)).toEqual(["170.5"]);
  });

  it("intersects the requested bookmakers with the plan's and drops sides no visible bookmaker prices", () => {
    const plan = { ...ALL, bookmakerIDs: new Set(["sportsbet", "tab"]) };
    const shaped = shapeEvent(contract, shapeFor(query({ bookmakerIDs: ["sportsbet", "pinnacle"] }), plan));
    expect(Object.keys(shaped.odds["points-home-game-ml-home"]!.byBookmaker)).toEqual(["sportsbet"]);
    expect(shaped.odds).not.toHaveProperty("points-all-game-ou-over");
    expect(shaped.info.bookmakersPresent).toEqual(["sportsbet"]);
    expect(Object.keys(shaped.links.bookmakers)).toEqual(["sportsbet"]);
  });

  it("nulls fairOdds, fairSpread and fairOverUnder and reports them unavailable for plans without fair odds", () => {
    const shaped = shapeEvent(contract, shapeFor(query(), { ...ALL, fairOdds: false }));
    expect(shaped.odds["points-all-game-ou-over"]).toMatchObject({ fairOdds: null, fairOverUnder: null });
    expect(shaped.odds["points-all-game-ou-over"]!.fairOddsAvailable).toBe(false);
    expect(contract.odds["points-all-game-ou-over"]!.fairOdds).toBe("+100");
    expect(contract.odds["points-all-game-ou-over"]!.fairOddsAvailable).toBe(true);
  });
});

describe("isStale", () => {
  it("is true once the source has written nothing for 45 minutes", () => {
    expect(isStale(NOW - 44 * 60_000, NOW)).toBe(false);
    expect(isStale(NOW - 45 * 60_000, NOW)).toBe(true);
  });
});
