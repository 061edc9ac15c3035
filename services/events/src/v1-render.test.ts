import { v1 } from "@odds/proto";
import { eventProto, HOUR, NOW, quote } from "../test/fixtures";
import { FULL_SHAPE, shapeEvent } from "./query";
import { renderEvent } from "./render";
import { externalEventID, renderV1Event, renderV1Odds, renderV1Result, v1StatusOf } from "./v1-render";

const contract = (options: Parameters<typeof eventProto>[0]) => renderEvent(eventProto(options));

describe("v1 Event", () => {
  test("team sports have home and away participants; the object parses against the v1 contract", () => {
    const { object, objects } = renderV1Event(contract({ eventId: "AFL_1" }), NOW);
    expect(v1.v1Event.parse(object)).toEqual(object);
    expect(object.event_id).toBe(v1.v1Id("event", "AFL_1"));
    expect(object.participants.map((p) => [p.role, p.name, p.score])).toEqual([
      ["home", "Collingwood Magpies", null],
      ["away", "Carlton Blues", 12],
    ]);
    expect(object.players[0]?.player_id).toBe(v1.v1Id("player", "JOHN_SMITH_1_AFL"));
    expect(object.external_ids).toEqual({ sportsbet: "1", tab: "1" });
    expect(objects).toBe(1);
  });

  test("tennis and MMA have competitor_1 and competitor_2", () => {
    for (const sportId of ["TENNIS", "MMA"]) {
      const { object } = renderV1Event(contract({ eventId: "X", sportId }), NOW);
      expect(object.participants.map((p) => p.role)).toEqual(["competitor_1", "competitor_2"]);
    }
  });

  test("status: cancelled, finalized, ended, live, delayed, else scheduled", () => {
    const flags = { cancelled: false, finalized: false, ended: false, live: false, started: false, delayed: false };
    expect(v1StatusOf(flags)).toBe("scheduled");
    expect(v1StatusOf({ ...flags, delayed: true })).toBe("delayed");
    expect(v1StatusOf({ ...flags, started: true, live: true })).toBe("live");
    expect(v1StatusOf({ ...flags, started: true, ended: true })).toBe("ended");
    expect(v1StatusOf({ ...flags, ended: true, finalized: true })).toBe("finalized");
    expect(v1StatusOf({ ...flags, cancelled: true, ended: true })).toBe("cancelled");
  });

  test("stale once the source has written nothing for 45 minutes, and valid until then", () => {
    const lastUpdatedAtMs = NOW - 30 * 60_000;
    const fresh = renderV1Event(contract({ eventId: "X", lastUpdatedAtMs }), NOW);
    expect(fresh.object.stale).toBe(false);
    expect(fresh.validUntilMs).toBe(lastUpdatedAtMs + 45 * 60_000);
    expect(renderV1Event(contract({ eventId: "X", lastUpdatedAtMs }), fresh.validUntilMs).object.stale).toBe(true);
  });

  test("the bookmaker's own event id is the last path segment of its event URL", () => {
    expect(externalEventID("https://www.tab.com.au/sports/afl/col-v-car-1234")).toBe("col-v-car-1234");
    expect(externalEventID("https://x.example/e/99/?ref=a#b")).toBe("99");
    expect(externalEventID("https://www.bet365.com.au/#/AC/B1/afl/col-v-car-9001")).toBe("col-v-car-9001");
    expect(externalEventID("https://x.example/")).toBeUndefined();
    expect(externalEventID("not a url")).toBeUndefined();
  });
});

describe("v1 EventOdds", () => {
  test("groups sides by market with outcome ids; decimal price and implied probability = 1 / price", () => {
    const { object } = renderV1Odds(contract({ eventId: "AFL_1" }), "market", null, NOW);
    expect(v1.v1EventOdds.parse(object)).toEqual(object);
    const moneyline = object.markets?.find((m) => m.market_id === v1.v1Id("market", "points-all-game-ml"));
    expect(moneyline?.outcomes.map((o) => o.side)).toEqual(["away", "home"]);
    const home = moneyline?.outcomes.find((o) => o.side === "home");
    expect(home?.outcome_id).toBe(v1.v1Id("outcome", "points-home-game-ml-home"));
    const sportsbet = home?.prices.find((p) => p.bookmaker === "sportsbet");
    expect(sportsbet?.decimal_odds).toBeCloseTo(1.667, 3);
    expect(sportsbet?.implied_probability).toBeCloseTo(1 / 1.667, 5);
    expect(home?.consensus?.decimal_odds).toBeCloseTo(1 + 100 / 150, 3);
    const total = object.markets?.find((m) => m.bet_type === "ou" && m.player_id === null);
    expect(total?.outcomes.map((o) => o.line)).toEqual([165.5, 165.5]);
    const prop = object.markets?.find((m) => m.player_id !== null);
    expect(prop?.player_id).toBe(v1.v1Id("player", "JOHN_SMITH_1_AFL"));
  });

  test("a withdrawn, suspended or stale price is null (never zero), is not charged, and the consensus goes null", () => {
    const event = eventProto({ eventId: "AFL_1" });
    const home = event.odds["points-home-game-ml-home"]!;
    home.byBookmaker.sportsbet = quote("sportsbet", "-150", { available: false });
    home.byBookmaker.pinnacle = quote("pinnacle", "-145", { lastUpdatedAtMs: NOW - HOUR });
    const rendered = renderV1Odds(renderEvent(event), "market", null, NOW);
    const outcome = rendered.object.markets
      ?.flatMap((m) => m.outcomes)
      .find((o) => o.outcome_id === v1.v1Id("outcome", "points-home-game-ml-home"));
    expect(outcome?.prices.map((p) => [p.bookmaker, p.decimal_odds, p.implied_probability])).toEqual([
      ["pinnacle", null, null],
      ["sportsbet", null, null],
    ]);
    expect(outcome?.consensus).toBeNull();
    const full = renderV1Odds(contract({ eventId: "AFL_1" }), "market", null, NOW);
    expect(full.objects - rendered.objects).toBe(2);
  });

  test("usage is 1 for the record plus 1 per open bookmaker price", () => {
    const { object, objects } = renderV1Odds(contract({ eventId: "AFL_1" }), "market", null, NOW);
    const prices = (object.markets ?? []).flatMap((m) => m.outcomes.flatMap((o) => o.prices));
    expect(objects).toBe(1 + prices.length);
  });

  test("a market filter keeps only those markets", () => {
    const wanted = new Set([v1.v1Id("market", "points-all-game-ou")]);
    const { object } = renderV1Odds(contract({ eventId: "AFL_1" }), "market", wanted, NOW);
    expect(object.markets?.map((m) => m.market_id)).toEqual([...wanted]);
  });

  test("group_by=bookmaker gives one block per bookmaker with the same prices", () => {
    const event = shapeEvent(contract({ eventId: "AFL_1" }), FULL_SHAPE);
    const byMarket = renderV1Odds(event, "market", null, NOW);
    const byBookmaker = renderV1Odds(event, "bookmaker", null, NOW);
    expect(v1.v1EventOdds.parse(byBookmaker.object)).toEqual(byBookmaker.object);
    expect(byBookmaker.object.bookmakers?.map((b) => b.bookmaker)).toEqual(["neds", "pinnacle", "sportsbet", "tab"]);
    const count = (byBookmaker.object.bookmakers ?? []).flatMap((b) => b.markets.flatMap((m) => m.outcomes)).length;
    const prices = (byMarket.object.markets ?? []).flatMap((m) => m.outcomes.flatMap((o) => o.prices)).length;
    expect(count).toBe(prices);
    expect(byBookmaker.objects).toBe(byMarket.objects);
  });
});

describe("v1 Result", () => {
  test("a live event's result is partial: its markets are pending, with no verdict", () => {
    const { object } = renderV1Result(contract({ eventId: "AFL_1", status: { started: true, live: true } }));
    expect(v1.v1Result.parse(object)).toEqual(object);
    expect(object.pending_markets).toBe(object.markets.length);
    expect(object.markets.every((market) => !market.settled && market.outcomes.every((o) => o.verdict === null))).toBe(
      true,
    );
  });

  test("an ended event settles every market from its results; a player without a result is void", () => {
    const event = eventProto({
      eventId: "AFL_1",
      status: { started: true, ended: true, finalized: true, periodsEnded: ["1q", "game"] },
    });
    event.results = {
      game: { entities: { home: { stats: { points: 90 } }, away: { stats: { points: 80 } } } },
    };
    const { object, objects } = renderV1Result(renderEvent(event));
    expect(v1.v1Result.parse(object)).toEqual(object);
    expect([object.status, object.final, object.pending_markets, objects]).toEqual(["finalized", true, 0, 1]);
    const verdict = (oddID: string) =>
      object.markets.flatMap((m) => m.outcomes).find((o) => o.outcome_id === v1.v1Id("outcome", oddID))?.verdict;
    expect(verdict("points-home-game-ml-home")).toBe("won");
    expect(verdict("points-away-game-ml-away")).toBe("lost");
    // 170 points against a total of 165.5.
    expect([verdict("points-all-game-ou-over"), verdict("points-all-game-ou-under")]).toEqual(["won", "lost"]);
    expect(verdict("disposals-JOHN_SMITH_1_AFL-game-ou-over")).toBe("void");
    expect(verdict("firstgoal-all-game-pick-home")).toBe("void");
  });

  test("a cancelled event voids every outcome", () => {
    const { object } = renderV1Result(contract({ eventId: "AFL_1", status: { cancelled: true } }));
    expect(object.status).toBe("cancelled");
    expect(object.markets.flatMap((m) => m.outcomes).every((o) => o.verdict === "void")).toBe(true);
  });
});
