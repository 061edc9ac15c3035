import { eventProto, HOUR, NOW, quote } from "../test/fixtures";
import { objectJsonWith, objectMembersOf, oddsLayoutOf } from "./odds-layout";
import { FULL_SHAPE, type OddsShape, shapeEvent } from "./query";
import { preparedEvent } from "./read-model";
import { contractJson, joinedJson, renderEvent, type ContractEvent } from "./render";
import { stampsOf } from "./stamps";

/** The fixture event plus sides and names that a byte-level reader could trip on. */
function awkwardEvent(eventId: string): ContractEvent {
  const proto = eventProto({ eventId, playerId: "ZOË_O'NEILL_1_AFL" });
  const plain = proto.odds["points-home-game-ml-home"]!;
  proto.odds["points-home-1q-ml-home"] = {
    ...plain,
    oddId: "points-home-1q-ml-home",
    periodId: "1q",
    // Quotes, braces, a backslash and `{"oddID":` inside strings must not move any boundary.
    marketName: 'Moneyline "1q" {"oddID":"x"} \\ é',
    byBookmaker: { tab: quote("tab", "+105", { eventName: '},"links":{"bookmakers":' }) },
  };
  return renderEvent(proto);
}

describe("oddsLayoutOf", () => {
  it("finds every side of a rendered event, in order, each slice parsing to that side", () => {
    for (const contract of [renderEvent(eventProto({ eventId: "E1" })), awkwardEvent("E2")]) {
      const rendered = contractJson(contract);
      for (const bytes of [rendered.full, joinedJson(rendered.withoutAltLines)]) {
        const layout = oddsLayoutOf(bytes);
        expect(layout?.sides.map((side) => side.oddID)).toEqual(Object.keys(contract.odds));
        for (const side of layout?.sides ?? []) {
          const parsed = JSON.parse(bytes.subarray(side.start, side.end).toString("utf8")) as { oddID: string };
          expect(parsed.oddID).toBe(side.oddID);
        }
        const others = Buffer.concat([bytes.subarray(0, layout!.headEnd), bytes.subarray(layout!.tailStart)]);
        expect(JSON.parse(others.toString("utf8"))).toEqual({ ...JSON.parse(bytes.toString("utf8")), odds: {} });
      }
    }
  });

  it("lays out an event without odds", () => {
    const contract = renderEvent(eventProto({ eventId: "E3", noOdds: true }));
    const bytes = contractJson(contract).full;
    const layout = oddsLayoutOf(bytes);
    expect(layout?.sides).toEqual([]);
    expect(bytes.subarray(layout!.headEnd - '"odds":{'.length, layout!.tailStart + 1).toString()).toBe('"odds":{}');
  });

  it("gives no layout when a side's key is not its oddID, or the JSON is not an event's", () => {
    const contract = renderEvent(eventProto({ eventId: "E4" }));
    const side = contract.odds["points-away-game-ml-away"]!;
    const renamed = {
      ...contract,
      odds: { ...contract.odds, "points-away-game-ml-away": { ...side, oddID: "other" } },
    };
    expect(oddsLayoutOf(Buffer.from(JSON.stringify(renamed)))).toBeUndefined();
    expect(oddsLayoutOf(Buffer.from("[1,2]"))).toBeUndefined();
    expect(oddsLayoutOf(Buffer.from('{"eventID":"E5"}'))).toBeUndefined();
  });
});

describe("objectMembersOf and objectJsonWith", () => {
  const event = awkwardEvent("E6");
  const bytes = contractJson(event).full;

  it("finds each member of an object, in order, each value slice parsing to that member's value", () => {
    const members = objectMembersOf(bytes)!;
    expect(members.map((member) => member.key)).toEqual(Object.keys(event));
    for (const { key, start, valueStart, end } of members) {
      expect(bytes.toString("utf8", start, valueStart)).toBe(`${JSON.stringify(key)}:`);
      expect(JSON.parse(bytes.toString("utf8", valueStart, end))).toEqual(JSON.parse(JSON.stringify(event))[key]);
    }
    expect(objectMembersOf(Buffer.from("{}"))).toEqual([]);
    for (const bad of ["[1]", '{"a":1', '{"a":1}x', '{"a" 1}', '{"a":1,}'])
      expect(objectMembersOf(Buffer.from(bad))).toBeUndefined();
  });

  it("writes what JSON.stringify writes for the object with some members replaced, dropped or added", () => {
    const members = objectMembersOf(bytes)!;
    const whole = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    const cases: Record<string, unknown>[] = [
      {},
      { eventID: 'E7 "quoted"' },
      { eventID: undefined, links: { bookmakers: {}, betslip: {} } },
      { odds: {}, info: undefined, added: [1, "zoë"] },
      Object.fromEntries(Object.keys(whole).map((key) => [key, undefined])),
    ];
    for (const replaced of cases)
      expect(objectJsonWith(bytes, members, replaced).toString("utf8")).toBe(JSON.stringify({ ...whole, ...replaced }));
  });
});

describe("PreparedEvent.json with an oddID filter (parses only the named sides)", () => {
  const oddIDSets = [
    ["points-home-game-ml-home"],
    ["points-home-game-ml-home", "points-all-game-ou-over"],
    ["disposals-PLAYER_ID-game-ou-over"],
    ["firstgoal-all-game-pick-home", "points-home-1q-ml-home"],
    ["no-such-side"],
  ];
  const shapes: OddsShape[] = [];
  for (const oddIDs of oddIDSets)
    for (const includeOpposingOdds of [false, true])
      for (const includeAltLines of [false, true])
        for (const bookmakerIDs of [null, new Set(["tab", "pinnacle"]), new Set(["nobody"])])
          for (const fairOdds of [true, false])
            for (const playerIDs of [[], ["ZOË_O'NEILL_1_AFL"]])
              shapes.push({
                ...FULL_SHAPE,
                oddIDs,
                includeOpposingOdds,
                includeAltLines,
                bookmakerIDs,
                fairOdds,
                playerIDs,
              });

  it("renders the same bytes as shaping the whole parsed event, fresh, stale and restamped", () => {
    const contract = awkwardEvent("E6");
    const event = preparedEvent(contract, "hash-E6");
    const later = event.restamped({
      lastUpdatedAtMs: NOW + HOUR,
      bookmakers: new Map([
        ["tab", NOW + HOUR],
        ["pinnacle", NOW + 2 * HOUR],
      ]),
    });
    const reparsed = (stamped: typeof event) => {
      // The old path: the whole event with the held stamps, parsed, then shaped.
      const stamps = stamped.stamps;
      const whole = JSON.parse(JSON.stringify(contract)) as ContractEvent;
      whole.info.lastUpdatedAt = new Date(stamps.lastUpdatedAtMs).toISOString();
      for (const side of Object.values(whole.odds))
        for (const prices of [side.byBookmaker, ...Object.values(side.altLines ?? {}).map((line) => line.byBookmaker)])
          for (const [bookmakerID, price] of Object.entries(prices))
            price.lastUpdatedAt = new Date(stamps.bookmakers.get(bookmakerID)!).toISOString();
      return whole;
    };
    expect(stampsOf(reparsed(event))).toEqual(event.stamps);
    let kept = 0;
    for (const stamped of [event, later])
      for (const nowMs of [NOW, NOW + 3 * HOUR])
        for (const shape of shapes) {
          const expected = JSON.stringify(shapeEvent(reparsed(stamped), shape));
          const served = JSON.parse(stamped.json(shape, nowMs).toString("utf8")) as ContractEvent;
          const stale = served.info.stale;
          expect(stale).toBe(nowMs > NOW + HOUR);
          expect(stamped.json(shape, nowMs).toString("utf8")).toBe(
            stale ? expected.replace('"stale":false', '"stale":true') : expected,
          );
          kept += Object.keys(served.odds).length;
        }
    // The shapes keep sides (the comparison is not of empty events only).
    expect(kept).toBeGreaterThan(shapes.length);
  });
});
