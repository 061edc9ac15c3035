import { eventProto, eventQuery, quote } from "../test/fixtures";
import { type PlanScope, shapeEvent, shapeFor } from "./query";
import { type ContractEvent, renderBookmakerOdds, renderEvent } from "./render";

const ALL: PlanScope = { sportIDs: null, leagueIDs: null, bookmakerIDs: null, fairOdds: true };
const query = (bookmakerIDs: string[] = []) => eventQuery({ bookmakerIDs });
const HOME = "points-home-game-ml-home";
const AWAY = "points-away-game-ml-away";

/** The fixture event with its moneyline priced by five bookmakers, pinnacle the sharp one. */
function fiveBookmakerEvent(): ContractEvent {
  const event = renderEvent(eventProto({ eventId: "AFL_E" }));
  const prices = (entries: [string, string][]) =>
    Object.fromEntries(entries.map(([id, odds]) => [id, renderBookmakerOdds(quote(id, odds), id)]));
  event.odds[HOME]!.byBookmaker = prices([
    ["sportsbet", "+100"],
    ["tab", "-111"],
    ["neds", "-125"],
    ["pinnacle", "-200"],
    ["ladbrokes_au", "-250"],
  ]);
  event.odds[AWAY]!.byBookmaker = prices([
    ["sportsbet", "-120"],
    ["tab", "-110"],
    ["neds", "+100"],
    ["pinnacle", "+150"],
    ["ladbrokes_au", "+200"],
  ]);
  return event;
}

const plan = (bookmakers: string[], fairOdds = true): PlanScope => ({
  ...ALL,
  bookmakerIDs: new Set(bookmakers),
  fairOdds,
});

describe("prices as the plan sees them", () => {
  const event = fiveBookmakerEvent();

  it("takes the consensus over the plan's bookmakers only (median of sportsbet, tab, neds: tab's -111)", () => {
    const lite = shapeEvent(event, shapeFor(query(), plan(["sportsbet", "tab", "neds"], false)));
    expect(lite.odds[HOME]).toMatchObject({ bookOdds: "-111", bookOddsAvailable: true });
    expect(Object.keys(lite.odds[HOME]!.byBookmaker).sort()).toEqual(["neds", "sportsbet", "tab"]);
    // Every bookmaker visible: the stored consensus is served untouched.
    expect(shapeEvent(event, shapeFor(query(), ALL)).odds[HOME]!.bookOdds).toBe(event.odds[HOME]!.bookOdds);
  });

  it("a request's bookmakerID filter narrows what is shown, not the consensus", () => {
    const shaped = shapeEvent(event, shapeFor(query(["tab"]), ALL));
    expect(Object.keys(shaped.odds[HOME]!.byBookmaker)).toEqual(["tab"]);
    expect(shaped.odds[HOME]!.bookOdds).toBe(event.odds[HOME]!.bookOdds);
  });

  it("takes fair prices from the sharp bookmakers the plan shows, else de-vigs its consensus and says so", () => {
    const withSharp = shapeEvent(event, shapeFor(query(), plan(["sportsbet", "pinnacle"])));
    // pinnacle alone: 1/1.5 and 1/2.5 de-vigged to 0.625 → 1.6 → -167.
    expect(withSharp.odds[HOME]).toMatchObject({ fairOdds: "-167", fairOddsAvailable: true });
    const withoutSharp = shapeEvent(event, shapeFor(query(), plan(["sportsbet", "tab", "neds"])));
    expect(withoutSharp.odds[HOME]!.fairOddsAvailable).toBe(false);
    expect(withoutSharp.odds[HOME]!.fairOdds).toMatch(/^[+-]\d+$/);
    const hidden = shapeEvent(event, shapeFor(query(), plan(["sportsbet", "pinnacle"], false)));
    expect(hidden.odds[HOME]).toMatchObject({ fairOdds: null, fairOddsAvailable: false });
  });

  it("counts in info.sourceBookmakerCount only the bookmakers the plan shows", () => {
    const shaped = shapeEvent(event, shapeFor(query(), plan(["sportsbet", "tab", "bet365_au"])));
    expect(shaped.info.sourceBookmakerCount).toBe(2);
    expect(shaped.info.bookmakersPresent).toEqual(["sportsbet", "tab"]);
  });

  it("re-prices lines over the plan's bookmakers too (the lower middle line of those with the side open)", () => {
    const totals = renderEvent(eventProto({ eventId: "AFL_T" }));
    const over = totals.odds["points-all-game-ou-over"]!;
    over.byBookmaker = {
      tab: renderBookmakerOdds(quote("tab", "-110", { overUnder: "165.5" }), "tab"),
      sportsbet: renderBookmakerOdds(quote("sportsbet", "-110", { overUnder: "168.5" }), "sportsbet"),
    };
    const shaped = shapeEvent(totals, shapeFor(query(), plan(["sportsbet"])));
    expect(shaped.odds["points-all-game-ou-over"]).toMatchObject({ bookOverUnder: "168.5", bookOdds: "-110" });
  });
});
