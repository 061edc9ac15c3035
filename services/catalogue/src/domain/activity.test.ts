import { ActivityLedger, normalizeEventState, sameEventState, type EventState } from "./activity";

const event = (eventID: string, active: boolean, markets: Record<string, string[]>, leagueID = "AFL"): EventState =>
  normalizeEventState({
    eventID,
    sportID: "AUSSIE_RULES",
    leagueID,
    active,
    markets: Object.entries(markets).map(([oddID, bookmakerIDs]) => ({ oddID, bookmakerIDs })),
  });

const leagues = (ledger: ActivityLedger, oddID: string) =>
  [...ledger.marketLeagues(oddID)].map((a) => ({
    leagueID: a.leagueID,
    activeEvents: a.activeEvents,
    bookmakers: Object.fromEntries(a.bookmakers),
  }));

describe("activity ledger", () => {
  test("counts an event's sport, league and priced markets while it is active; unpriced markets join at zero", () => {
    const ledger = new ActivityLedger();
    ledger.replace(
      undefined,
      event("e1", true, { "points-home-game-ml-home": ["sportsbet", "tab"], "x-all-game-yn-yes": [] }),
    );
    ledger.replace(undefined, event("e2", true, { "points-home-game-ml-home": ["tab"] }));
    expect(ledger.sportActiveEvents("AUSSIE_RULES")).toBe(2);
    expect(ledger.leagueActiveEvents("AFL")).toBe(2);
    expect(leagues(ledger, "points-home-game-ml-home")).toEqual([
      { leagueID: "AFL", activeEvents: 2, bookmakers: { sportsbet: 1, tab: 2 } },
    ]);
    expect(leagues(ledger, "x-all-game-yn-yes")).toEqual([{ leagueID: "AFL", activeEvents: 0, bookmakers: {} }]);
  });

  test("moves counts by the delta when an event changes, ends and comes back", () => {
    const ledger = new ActivityLedger();
    const first = event("e1", true, { "points-home-game-ml-home": ["sportsbet", "tab"] });
    ledger.replace(undefined, first);
    const moved = event("e1", true, { "points-home-game-ml-home": ["tab"], "points-all-game-ou-over": ["tab"] });
    ledger.replace(first, moved);
    expect(leagues(ledger, "points-home-game-ml-home")).toEqual([
      { leagueID: "AFL", activeEvents: 1, bookmakers: { tab: 1 } },
    ]);
    const ended = { ...moved, active: false };
    ledger.replace(moved, ended);
    expect(ledger.leagueActiveEvents("AFL")).toBe(0);
    expect(leagues(ledger, "points-all-game-ou-over")).toEqual([{ leagueID: "AFL", activeEvents: 0, bookmakers: {} }]);
    ledger.replace(ended, moved);
    expect(ledger.sportActiveEvents("AUSSIE_RULES")).toBe(1);
  });

  test("normalisation makes equal states compare equal whatever the input order", () => {
    const a = event("e1", true, { b: ["y", "x", "x"], a: ["z"] });
    const b = event("e1", true, { a: ["z"], b: ["x", "y"] });
    expect(sameEventState(a, b)).toBe(true);
    expect(sameEventState(undefined, b)).toBe(false);
    // Any difference in a field, a market or a bookmaker is a change.
    for (const other of [
      event("e2", true, { a: ["z"], b: ["x", "y"] }),
      event("e1", false, { a: ["z"], b: ["x", "y"] }),
      event("e1", true, { a: ["z"], b: ["x"] }),
      event("e1", true, { a: ["z"], b: ["x", "w"] }),
      event("e1", true, { a: ["z"], c: ["x", "y"] }),
      event("e1", true, { a: ["z"] }),
      event("e1", true, { a: ["z"], b: ["x", "y"] }, "NRL"),
    ]) {
      expect(sameEventState(b, other)).toBe(false);
    }
  });

  test("normalised states share one bookmaker list per set of bookmakers, whatever event carries it", () => {
    // Names built at run time, as a decode makes them: equal strings, distinct instances.
    const id = (...parts: string[]) => parts.join("-");
    const a = event("e1", true, { [id("points", "home")]: ["tab", "sportsbet"], [id("points", "away")]: ["neds"] });
    const b = event("e2", true, { [id("points", "home")]: ["sportsbet", "tab", "tab"] });
    expect(a.markets.map((m) => [m.oddID, m.bookmakerIDs])).toEqual([
      ["points-away", ["neds"]],
      ["points-home", ["sportsbet", "tab"]],
    ]);
    expect(b.markets[0]!.bookmakerIDs).toBe(a.markets[1]!.bookmakerIDs);
    expect(b.markets[0]!.bookmakerIDs).not.toBe(a.markets[0]!.bookmakerIDs);
    expect(sameEventState(a, event("e1", true, { "points-away": ["neds"], "points-home": ["sportsbet", "tab"] }))).toBe(
      true,
    );
  });

  test("a normalised state normalised again is returned as it is; a copy of it is normalised anew, to an equal state", () => {
    const state = event("e1", true, { "points-home": ["tab", "sportsbet"], "points-away": ["neds"] });
    expect(normalizeEventState(state)).toBe(state);
    const copy = { ...state, markets: [...state.markets].reverse() };
    const again = normalizeEventState(copy);
    expect(again).not.toBe(copy);
    expect(sameEventState(again, state)).toBe(true);
  });
});
