import { rankedSeries, resolveWindow } from "./reader";
import { DAY_MS } from "./ticks";

describe("resolveWindow", () => {
  const event = { eventID: "E", sportID: "S", leagueID: "L", startsAtMs: Date.UTC(2026, 9, 20, 9, 30) };
  const now = Date.UTC(2026, 10, 21);

  it("defaults from 21 days before the kickoff date (midnight UTC) to 2 days after kickoff", () => {
    expect(resolveWindow(event, undefined, undefined)).toEqual({
      fromMs: Date.UTC(2026, 8, 29),
      toMs: Date.UTC(2026, 9, 22, 9, 30),
    });
  });

  it("leaves an end still ahead as asked (a read stops at now: tiers.test.ts)", () => {
    expect(resolveWindow(event, undefined, Date.UTC(2027, 0, 1)).toMs).toBe(Date.UTC(2027, 0, 1));
  });

  it("rejects a span over 400 days naming from and to, and accepts exactly 400", () => {
    expect(() => resolveWindow(event, now - 401 * DAY_MS, now)).toThrow(/from and to span more than 400 days/);
    expect(resolveWindow(event, now - 400 * DAY_MS, now).fromMs).toBe(now - 400 * DAY_MS);
  });

  it("rejects a window that ends before it starts", () => {
    expect(() => resolveWindow(event, now, now - 1)).toThrow(/^from: must be before to/);
  });
});

describe("rankedSeries", () => {
  it("keeps per bookmaker the highest-ranked source, lowest source id on a tie", () => {
    expect(
      rankedSeries([
        { bookmakerID: "tab", sourceID: "aggregator", sourceRank: 10 },
        { bookmakerID: "tab", sourceID: "direct", sourceRank: 20 },
        { bookmakerID: "neds", sourceID: "b", sourceRank: 5 },
        { bookmakerID: "neds", sourceID: "a", sourceRank: 5 },
      ]),
    ).toEqual(["neds|a", "tab|direct"]);
  });
});
