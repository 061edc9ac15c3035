import { unpackJson } from "@odds/platform";
import { deflateRawSync } from "node:zlib";
import type { events } from "@odds/proto";
import { eventProto, HOUR, NOW, quote } from "../test/fixtures";
import { PackedRendering } from "./packed-rendering";
import { FULL_SHAPE, type OddsShape, shapeEvent } from "./query";
import { preparedEvent } from "./read-model";
import { contractJsonWithoutAltLines, joinedJson, renderEvent, type ContractEvent } from "./render";

/**
 * An event priced on `pairs` player markets (over and under, four bookmakers each), its names
 * holding quotes, backslashes and non-ASCII, and one pair whose sides sort far apart: several
 * pieces' worth of sides, and a side whose opposing side is in another piece.
 */
function deepEvent(eventId: string, pairs: number): ContractEvent {
  const proto = eventProto({ eventId });
  const plain = proto.odds["points-all-game-ou-over"]!;
  const books = ["sportsbet", "tab", "ladbrokes", "pinnacle"];
  const add = (oddId: string, opposingOddId: string, playerId: string, n: number) => {
    const byBookmaker: Record<string, events.BookmakerOdds> = {};
    for (const bookmakerId of books)
      byBookmaker[bookmakerId] = quote(bookmakerId, String(100 + n), { overUnder: `${n}.5` });
    proto.odds[oddId] = {
      ...plain,
      oddId,
      opposingOddId,
      playerId,
      marketName: `Disposals "${playerId}" \\ Zoë ${n}`,
      bookOverUnder: `${n}.5`,
      byBookmaker,
      altLines: {},
    };
  };
  for (let n = 0; n < pairs; n++) {
    const playerId = `PLAYER_${n}_AFL`;
    add(`disposals-${playerId}-game-ou-over`, `disposals-${playerId}-game-ou-under`, playerId, n);
    add(`disposals-${playerId}-game-ou-under`, `disposals-${playerId}-game-ou-over`, playerId, n);
  }
  add("aaa-ALPHA_1_AFL-game-yn-yes", "zzz-ALPHA_1_AFL-game-yn-no", "ALPHA_1_AFL", 1);
  add("zzz-ALPHA_1_AFL-game-yn-no", "aaa-ALPHA_1_AFL-game-yn-yes", "ALPHA_1_AFL", 2);
  return renderEvent(proto);
}

describe("PackedRendering", () => {
  const events = [
    renderEvent(eventProto({ eventId: "E0", noOdds: true })),
    renderEvent(eventProto({ eventId: "E1" })),
    deepEvent("E2", 300),
  ];

  it("unpacks whole to the rendering, and finds every side's value and the event without odds", () => {
    for (const contract of events) {
      const parts = contractJsonWithoutAltLines(contract);
      const packed = PackedRendering.pack(parts);
      expect(unpackJson(packed.packed)).toEqual(joinedJson(parts));

      const whole = JSON.parse(joinedJson(parts).toString("utf8")) as ContractEvent;
      expect(packed.oddIDs()).toEqual(Object.keys(whole.odds));
      const order = packed.oddIDs();
      const values = packed.sideValues(order.map((_, side) => side));
      expect(values.map((bytes) => bytes.toString("utf8"))).toEqual(
        order.map((oddID) => JSON.stringify(whole.odds[oddID])),
      );
      expect(JSON.parse(packed.withoutOdds().toString("utf8"))).toEqual({ ...whole, odds: {} });
      expect(() => packed.sideValues([order.length])).toThrow(RangeError);
    }
  });

  it("gives the sides asked for in the order asked, from pieces in any order", () => {
    const parts = contractJsonWithoutAltLines(events[2]!);
    const packed = PackedRendering.pack(parts);
    const order = packed.oddIDs();
    const whole = JSON.parse(joinedJson(parts).toString("utf8")) as ContractEvent;
    const sides = [order.length - 1, 0, 301, 2, 300];
    expect(packed.sideValues(sides).map((bytes) => bytes.toString("utf8"))).toEqual(
      sides.map((side) => JSON.stringify(whole.odds[order[side]!])),
    );
  });

  it("crosses between threads as its data: a structured clone reads the same sides", () => {
    const parts = contractJsonWithoutAltLines(events[2]!);
    const packed = PackedRendering.pack(parts);
    const crossed = PackedRendering.fromData(structuredClone(packed.data()));
    expect(crossed.packed).toEqual(packed.packed);
    expect(crossed.oddIDs()).toEqual(packed.oddIDs());
    const some = packed.oddIDs().flatMap((_, index) => (index % 97 === 0 ? [index] : []));
    expect(crossed.sideValues(some)).toEqual(packed.sideValues(some));
    expect(crossed.withoutOdds()).toEqual(packed.withoutOdds());
  });

  it("cuts a deep event into pieces without packing it much larger than whole", () => {
    const parts = contractJsonWithoutAltLines(events[2]!);
    const json = joinedJson(parts);
    const packed = PackedRendering.pack(parts);
    // Several pieces of 64 KB.
    expect(json.length).toBeGreaterThan(6 * 64 * 1024);
    // One side alone is read from its piece: far fewer bytes than the event.
    expect(packed.sideValues([0])[0]!.buffer.byteLength).toBeLessThan(json.length / 4);
    expect(packed.packed.length).toBeLessThan(1.3 * deflateRawSync(json, { level: 1 }).length);
  });

  it("serves a deep event's narrow reads as shaping the whole parsed event does", () => {
    const contract = deepEvent("E3", 300);
    const event = preparedEvent(contract, "hash-E3").restamped({
      lastUpdatedAtMs: NOW + HOUR,
      bookmakers: new Map([["tab", NOW + 2 * HOUR]]),
    });
    const whole = JSON.parse(event.json(FULL_SHAPE, NOW).toString("utf8")) as ContractEvent;
    const oddIDSets = [
      ["disposals-PLAYER_0_AFL-game-ou-over"],
      ["disposals-PLAYER_77_AFL-game-ou-under", "disposals-PLAYER_299_AFL-game-ou-over"],
      ["aaa-ALPHA_1_AFL-game-yn-yes"],
      ["disposals-PLAYER_ID-game-ou-over"],
    ];
    for (const oddIDs of oddIDSets)
      for (const includeOpposingOdds of [false, true])
        for (const bookmakerIDs of [null, new Set(["tab", "pinnacle"])]) {
          const shape: OddsShape = { ...FULL_SHAPE, oddIDs, includeOpposingOdds, bookmakerIDs };
          expect(event.json(shape, NOW).toString("utf8")).toBe(JSON.stringify(shapeEvent(whole, shape)));
        }
    // The pair sorted far apart: the opposing side comes from another piece.
    const paired = { ...FULL_SHAPE, oddIDs: ["aaa-ALPHA_1_AFL-game-yn-yes"], includeOpposingOdds: true };
    const served = JSON.parse(event.json(paired, NOW).toString("utf8")) as ContractEvent;
    expect(Object.keys(served.odds)).toEqual(["aaa-ALPHA_1_AFL-game-yn-yes", "zzz-ALPHA_1_AFL-game-yn-no"]);
  });
});
