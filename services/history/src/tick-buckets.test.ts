import { packJsonArray, packJsonSync, unpackJson } from "@odds/platform";
import { Binary } from "mongodb";
import { HeldQuotes } from "./held-quotes";
import {
  appendToBucket,
  bucketId,
  decodeBucket,
  encodeBucket,
  hourOf,
  mergeTicks,
  storedTicksOf,
  ticksByHour,
} from "./tick-buckets";
import { diffSnapshot, type BookSnapshot, type TickDocument } from "./ticks";

const HOUR = Date.UTC(2026, 9, 1, 13);

function ticksAt(observedAtMs: number, bookmakerID = "sportsbet", sourceID = "feed-a"): TickDocument[] {
  const snapshot: BookSnapshot = {
    eventID: "AFL_2026-10-02_a_vs_b",
    bookmakerID,
    sourceID,
    sourceRank: 10,
    observedAtMs,
    quotes: [
      { oddID: "points-home-game-ml-home", decimalOdds: 1.8, available: true, maxStake: 500 },
      { oddID: "points-away-game-ml-away", decimalOdds: 2.05, available: true, line: 3.5, isMainLine: true },
    ],
  };
  return diffSnapshot(HeldQuotes.EMPTY, snapshot).ticks;
}

describe("hour buckets", () => {
  it("give back exactly the ticks put in, in history order (changedAt, then tick id)", () => {
    const ticks = [...ticksAt(HOUR + 60_000, "tab"), ...ticksAt(HOUR + 5_000), ...ticksAt(HOUR + 60_000)];
    const bucket = encodeBucket(bucketId(ticks[0]!.eventID, HOUR, false), ticks[0]!.eventID, HOUR, ticks, 1);
    const expected = [...ticks].sort(
      (a, b) => a.changedAt.getTime() - b.changedAt.getTime() || (a._id < b._id ? -1 : 1),
    );
    expect(decodeBucket(bucket)).toEqual(expected);
    expect(bucket).toMatchObject({
      _id: "2026-10-01T13",
      hour: HOUR,
      day: "2026-10-01",
      n: 6,
      v: 1,
      sources: ["sportsbet|feed-a|10", "tab|feed-a|10"],
    });
  });

  it("store each tick as a row of its fields in a fixed order, the trailing nulls left out, rewritten or not", () => {
    const heldRows = (bucket: ReturnType<typeof encodeBucket>) =>
      JSON.parse(unpackJson(bucket.ticks.buffer).toString("utf8")) as unknown[][];
    const ticks = ticksAt(HOUR + 5_000);
    const bucket = encodeBucket("2026-10-01T13", ticks[0]!.eventID, HOUR, ticks, 1);
    const byOdd = new Map(heldRows(bucket).map((row) => [row[1], row]));
    const home = ticks.find((tick) => tick.oddID === "points-home-game-ml-home")!;
    const away = ticks.find((tick) => tick.oddID === "points-away-game-ml-away")!;
    // _id, oddID, bookmakerID, sourceID, sourceRank, changedAt, kind, bookOdds, decimalOdds, previousBookOdds,
    // previousDecimalOdds, line, isMainLine, layOdds, maxStake, previousMaxStake.
    expect(byOdd.get(home.oddID)).toEqual([
      home._id,
      home.oddID,
      "sportsbet",
      "feed-a",
      10,
      HOUR + 5_000,
      "open",
      "-125",
      1.8,
      null,
      null,
      null,
      null,
      null,
      500,
    ]);
    expect(byOdd.get(away.oddID)).toEqual([
      away._id,
      away.oddID,
      "sportsbet",
      "feed-a",
      10,
      HOUR + 5_000,
      "open",
      "+105",
      2.05,
      null,
      null,
      3.5,
      true,
    ]);
    const rewritten = encodeBucket(bucket._id, bucket.eventID, HOUR, decodeBucket(bucket), 2);
    expect(rewritten.ticks.buffer).toEqual(bucket.ticks.buffer);
  });

  it("read a bucket written before rows, whose ticks are objects, and append rows after them", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const held = [...ticksAt(HOUR + 1_000), ...ticksAt(HOUR + 1_000, "tab")];
    const later = ticksAt(HOUR + 2_000, "neds");
    // As such buckets were written: every field of the tick but its event, day and series, keyed, nulls kept.
    const objects = [...held]
      .sort((a, b) => a.changedAt.getTime() - b.changedAt.getTime() || (a._id < b._id ? -1 : 1))
      .map(({ eventID: _e, day: _d, seriesKey: _s, changedAt, ...rest }) => ({
        ...rest,
        changedAt: changedAt.getTime(),
      }));
    const packed = packJsonArray(JSON.stringify(objects));
    const whole = encodeBucket(id, eventID, HOUR, [...held, ...later], 2);
    const oldBucket = {
      ...encodeBucket(id, eventID, HOUR, held, 1),
      ticks: new Binary(packed.packed),
      closeAt: packed.closeAt,
      jsonBytes: packed.bytes,
    };
    expect(decodeBucket(oldBucket)).toEqual(decodeBucket(encodeBucket(id, eventID, HOUR, held, 1)));
    const appended = appendToBucket(oldBucket, later)!;
    const stored = JSON.parse(unpackJson(appended.ticks.buffer).toString("utf8")) as unknown[];
    expect(stored.map((tick) => Array.isArray(tick))).toEqual([false, false, false, false, true, true]);
    expect(decodeBucket(appended)).toEqual(decodeBucket(whole));
    expect(storedTicksOf(appended)).toEqual(storedTicksOf(whole));
  });

  it("name the event in the id only where the collection is shared", () => {
    expect(bucketId("NBA_x", HOUR, true)).toBe("NBA_x|2026-10-01T13");
    expect(bucketId("NBA_x", HOUR, false)).toBe("2026-10-01T13");
  });

  it("merge by tick id: a tick already held is kept as held, and a replay adds nothing", () => {
    const held = ticksAt(HOUR);
    const replayed = held.map((tick) => ({ ...tick, maxStake: 1 }));
    expect(mergeTicks(held, replayed)).toBeUndefined();
    const later = ticksAt(HOUR + 1_000);
    expect(mergeTicks(held, [...replayed, ...later, ...later])).toEqual([...held, ...later]);
  });

  it("append ticks newer than the bucket's newest without decoding it: the same bucket as encoding them all", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const held = [...ticksAt(HOUR + 1_000), ...ticksAt(HOUR + 1_000, "tab")];
    const later = [...ticksAt(HOUR + 2_000, "tab"), ...ticksAt(HOUR + 3_000, "neds")];
    const bucket = encodeBucket(id, eventID, HOUR, held, 4);
    const appended = appendToBucket(bucket, [...later, ...later]);
    const whole = encodeBucket(id, eventID, HOUR, [...held, ...later], 5);
    expect(appended).toBeDefined();
    expect(decodeBucket(appended!)).toEqual(decodeBucket(whole));
    const { ticks: _a, closeAt: _ac, ...summary } = appended!;
    const { ticks: _w, closeAt: _wc, ...wholeSummary } = whole;
    expect(summary).toEqual(wholeSummary);
    expect(summary).toMatchObject({ n: 8, v: 5, sources: ["neds|feed-a|10", "sportsbet|feed-a|10", "tab|feed-a|10"] });
  });

  it("pack only the appended ticks: the held ones stay packed as they were, byte for byte", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const bucket = encodeBucket(id, eventID, HOUR, [...ticksAt(HOUR + 1_000), ...ticksAt(HOUR + 1_000, "tab")], 1);
    const appended = appendToBucket(bucket, ticksAt(HOUR + 2_000, "neds"))!;
    const held = bucket.ticks.buffer.subarray(0, bucket.closeAt);
    expect(appended.ticks.buffer.subarray(0, bucket.closeAt)).toEqual(held);
    expect(appended.closeAt).toBeGreaterThan(bucket.closeAt!);
    expect(appended.jsonBytes).toBe(unpackJson(appended.ticks.buffer).length);
  });

  it("grow over an hour of cycles to the ticks of one encoding, about as small", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const books = ["sportsbet", "tab", "neds", "ladbrokes_au", "pointsbet_au", "betfair_ex_au"];
    // A cycle every two minutes, each moving every book's two prices.
    const cycles = Array.from({ length: 30 }, (_, cycle) =>
      books.flatMap((book, index) => ticksAt(HOUR + cycle * 120_000 + index, book)),
    );
    let bucket = encodeBucket(id, eventID, HOUR, cycles[0]!, 1);
    for (const ticks of cycles.slice(1)) bucket = appendToBucket(bucket, ticks)!;
    const whole = encodeBucket(id, eventID, HOUR, cycles.flat(), 30);
    expect(decodeBucket(bucket)).toEqual(decodeBucket(whole));
    expect(bucket).toMatchObject({ n: whole.n, v: 30, jsonBytes: whole.jsonBytes });
    expect(bucket.ticks.buffer.length).toBeLessThan(whole.ticks.buffer.length * 1.15);
  });

  it("append to a bucket packed whole before appends were packed apart, and keep it appendable", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const held = ticksAt(HOUR + 1_000);
    const { ticks: _t, closeAt: _c, jsonBytes: _j, ...summary } = encodeBucket(id, eventID, HOUR, held, 1);
    // As such buckets were written: the JSON deflated as one stream, with no closeAt or jsonBytes.
    const json = unpackJson(encodeBucket(id, eventID, HOUR, held, 1).ticks.buffer);
    const old = { ...summary, ticks: new Binary(packJsonSync(json)) };
    const later = ticksAt(HOUR + 2_000, "tab");
    const appended = appendToBucket(old, later)!;
    expect(decodeBucket(appended)).toEqual(decodeBucket(encodeBucket(id, eventID, HOUR, [...held, ...later], 2)));
    expect(appended.closeAt).toBeDefined();
    const again = appendToBucket(appended, ticksAt(HOUR + 3_000, "neds"))!;
    expect(again.ticks.buffer.subarray(0, appended.closeAt)).toEqual(
      appended.ticks.buffer.subarray(0, appended.closeAt),
    );
    expect(decodeBucket(again)).toHaveLength(6);
  });

  it("leave a write that is not all newer than the bucket's newest tick to the merge", () => {
    const eventID = "AFL_2026-10-02_a_vs_b";
    const id = bucketId(eventID, HOUR, false);
    const held = ticksAt(HOUR + 5_000);
    const bucket = encodeBucket(id, eventID, HOUR, held, 1);
    // A replay of the held ticks, a tick older than the newest, and one at the same instant with a lower id.
    expect(appendToBucket(bucket, held)).toBeUndefined();
    expect(appendToBucket(bucket, [...ticksAt(HOUR + 6_000), ...ticksAt(HOUR + 4_000)])).toBeUndefined();
    const sameInstant = [...held].sort((a, b) => (a._id < b._id ? -1 : 1))[0]!;
    expect(appendToBucket(bucket, [{ ...sameInstant, _id: `${sameInstant._id.slice(0, -1)}` }])).toBeUndefined();
    // A bucket written before the newest tick was kept beside the ticks.
    const { lastAt: _at, lastId: _id, ...old } = bucket;
    expect(appendToBucket(old, ticksAt(HOUR + 6_000))).toBeUndefined();
  });

  it("group ticks by the UTC hour of changedAt", () => {
    const ticks = [...ticksAt(HOUR - 1), ...ticksAt(HOUR), ...ticksAt(HOUR + 3_599_999)];
    const byHour = ticksByHour(ticks);
    expect([...byHour.keys()]).toEqual([hourOf(HOUR - 1), HOUR]);
    expect(byHour.get(HOUR)).toHaveLength(4);
  });
});
