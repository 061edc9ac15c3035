import { eventProto, NOW } from "../test/fixtures";
import { FULL_SHAPE, shapeEvent } from "./query";
import { events } from "@odds/proto";
import {
  contractJson,
  contractJsonWithoutAltLines,
  joinedJson,
  renderBookmakerOdds,
  renderEvent,
  type ContractEvent,
} from "./render";

describe("renderEvent", () => {
  const contract = renderEvent(eventProto({ eventId: "AFL_2026-11-21_collingwood_vs_carlton" }));

  it("renders the contract's Event keys in contract order with ISO 8601 UTC dates", () => {
    expect(Object.keys(contract)).toEqual([
      "eventID",
      "sportID",
      "leagueID",
      "type",
      "status",
      "info",
      "teams",
      "players",
      "results",
      "odds",
      "links",
    ]);
    expect(Object.keys(contract.status)).toEqual([
      "started",
      "ended",
      "live",
      "cancelled",
      "delayed",
      "finalized",
      "completed",
      "startsAt",
      "oddsPresent",
      "oddsAvailable",
      "currentPeriodID",
      "periods",
      "displayShort",
      "displayLong",
    ]);
    expect(contract.status.startsAt).toBe(new Date(NOW + 2 * 3600_000).toISOString());
    expect(contract.info.lastUpdatedAt).toBe(new Date(NOW - 60_000).toISOString());
    expect(contract.info.commenceTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(contract.status.currentPeriodID).toBeNull();
  });

  it("nests results as periodID.statEntityID.statID and keys players by playerID", () => {
    expect(contract.results).toEqual({ "1q": { home: { points: 21 }, away: { points: 12 } } });
    expect(contract.players.JOHN_SMITH_1_AFL).toEqual({
      playerID: "JOHN_SMITH_1_AFL",
      teamID: "COLLINGWOOD_MAGPIES_AFL",
      name: "John Smith",
      firstName: "John",
      lastName: "Smith",
    });
  });

  it("renders teams with names, known colours, statEntityID and a null score before one exists", () => {
    expect(contract.teams.home).toEqual({
      teamID: "COLLINGWOOD_MAGPIES_AFL",
      names: { long: "Collingwood Magpies", medium: "Collingwood", short: "COL" },
      colors: { primary: "#000000", secondary: "#FFFFFF" },
      statEntityID: "home",
      score: null,
    });
    expect(contract.teams.away?.score).toBe(12);
  });

  it("renders opposingOddID null for pick markets and unavailable lines and fair prices as null", () => {
    const pick = contract.odds["firstgoal-all-game-pick-home"]!;
    expect(pick.opposingOddID).toBeNull();
    expect(pick.fairOdds).toBeNull();
    expect(pick.bookSpread).toBeNull();
    expect(pick.bookOverUnder).toBeNull();
    expect(pick.fairSpread).toBeNull();
    expect(contract.odds["points-home-game-ml-home"]!.opposingOddID).toBe("points-away-game-ml-away");
    expect(contract.odds["points-all-game-ou-over"]!.bookOverUnder).toBe("165.5");
  });

  it("never renders open or close prices and sets playerID only on player props", () => {
    const json = JSON.stringify(contract);
    for (const field of ["openOdds", "closeOdds", "openSpread", "closeSpread", "openOverUnder", "closeOverUnder"])
      expect(json).not.toContain(`"${field}"`);
    expect(contract.odds["points-home-game-ml-home"]).not.toHaveProperty("playerID");
    expect(contract.odds["disposals-JOHN_SMITH_1_AFL-game-ou-over"]!.playerID).toBe("JOHN_SMITH_1_AFL");
  });

  it("renders each bookmaker price with its line only where the market has one", () => {
    const tab = contract.odds["points-all-game-ou-over"]!.byBookmaker.tab!;
    expect(tab).toEqual({
      bookmakerID: "tab",
      odds: "-110",
      decimal: 1.909,
      overUnder: "165.5",
      available: true,
      lastUpdatedAt: new Date(NOW - 60_000).toISOString(),
      eventName: "Home v Away",
      deeplink: "https://tab.example/market",
    });
    expect(contract.odds["points-home-game-ml-home"]!.byBookmaker.sportsbet).not.toHaveProperty("overUnder");
  });

  it("writes a price's members in the contract's order, the optional ones in their places", () => {
    const base = { odds: "-110", decimal: 1.909, available: true, lastUpdatedAtMs: NOW, eventName: "Home v Away" };
    const every = {
      ...base,
      bookmakerId: "tab",
      overUnder: "165.5",
      spread: "-6.5",
      deeplink: "https://tab.example/m",
    };
    // Any other order of members would render other JSON bytes, and so another content hash for the same prices.
    expect(Object.keys(renderBookmakerOdds(events.BookmakerOdds.create(every), "tab"))).toEqual([
      "bookmakerID",
      "odds",
      "decimal",
      "overUnder",
      "spread",
      "available",
      "lastUpdatedAt",
      "eventName",
      "deeplink",
    ]);
    const none = renderBookmakerOdds(events.BookmakerOdds.create(base), "neds");
    expect(JSON.stringify(none)).toBe(
      `{"bookmakerID":"neds","odds":"-110","decimal":1.909,"available":true,` +
        `"lastUpdatedAt":"${new Date(NOW).toISOString()}","eventName":"Home v Away"}`,
    );
  });

  it("derives oddsPresent and oddsAvailable from the event's markets", () => {
    expect(contract.status.oddsPresent).toBe(true);
    expect(contract.status.oddsAvailable).toBe(true);
    const suspended = renderEvent(eventProto({ eventId: "E", suspended: true }));
    expect([suspended.status.oddsPresent, suspended.status.oddsAvailable]).toEqual([true, false]);
    const bare = renderEvent(eventProto({ eventId: "E", noOdds: true }));
    expect([bare.status.oddsPresent, bare.status.oddsAvailable]).toEqual([false, false]);
  });

  it("renders the same bytes whatever order the maps arrived in", () => {
    const event = eventProto({ eventId: "E" });
    const reversed = { ...event, odds: Object.fromEntries(Object.entries(event.odds).reverse()) };
    expect(JSON.stringify(renderEvent(reversed))).toBe(JSON.stringify(renderEvent(event)));
  });
});

describe("contractJson", () => {
  const cases: Array<[string, ContractEvent]> = [
    ["a priced event", renderEvent(eventProto({ eventId: "AFL_JSON" }))],
    ["an event without odds", renderEvent(eventProto({ eventId: "AFL_BARE", noOdds: true }))],
  ];
  // A document written before alternate lines were rendered has sides without the member; strings need escaping.
  const older = JSON.parse(JSON.stringify(cases[0]![1])) as ContractEvent;
  delete (older.odds["points-home-game-ml-home"] as { altLines?: unknown }).altLines;
  older.info.displayName = 'Home "v" Away \\ \u2028';
  cases.push(["sides without altLines and escaped strings", older]);

  it.each(cases)("renders %s as JSON.stringify does, and without altLines as the default shape does", (_, event) => {
    const json = contractJson(event);
    expect(json.full.toString()).toBe(JSON.stringify(event));
    expect(joinedJson(json.withoutAltLines).toString()).toBe(JSON.stringify(shapeEvent(event, FULL_SHAPE)));
    expect(contractJsonWithoutAltLines(event)).toEqual(json.withoutAltLines);
  });

  it("leaves out altLines only: the alternate lines are in the full form", () => {
    const json = contractJson(cases[0]![1]);
    expect(json.full.toString()).toContain('"altLines":{"');
    expect(joinedJson(json.withoutAltLines).toString()).not.toContain('"altLines"');
  });
});
