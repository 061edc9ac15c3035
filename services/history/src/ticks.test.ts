import { booksFromTicks } from "./book-states";
import { HeldQuotes } from "./held-quotes";
import type { objects } from "@odds/proto";
import {
  diffSnapshot,
  renderTicks,
  tickId,
  tickKindFor,
  type BookSnapshot,
  type HeldQuote,
  type TickDocument,
} from "./ticks";

const held: HeldQuote = {
  oddID: "points-all-game-ou-over",
  decimalOdds: 1.9,
  line: 45.5,
  isMainLine: true,
  maxStake: 500,
};
const observed = (change: Partial<HeldQuote & { available: boolean }> = {}) => ({
  ...held,
  available: true,
  ...change,
});

describe("tickKindFor", () => {
  it("opens a quote that is not held, and ignores one that is neither held nor open", () => {
    expect(tickKindFor(undefined, observed())).toBe("open");
    expect(tickKindFor(undefined, observed({ available: false }))).toBeUndefined();
  });

  it("moves on a price, lay price, line or main-line change", () => {
    expect(tickKindFor(held, observed({ decimalOdds: 1.95 }))).toBe("move");
    expect(tickKindFor(held, observed({ layOdds: 1.97 }))).toBe("move");
    expect(tickKindFor(held, observed({ line: 46.5 }))).toBe("move");
    expect(tickKindFor(held, observed({ isMainLine: false }))).toBe("move");
  });

  it("records a limit change when only maxStake changed, and nothing when nothing changed", () => {
    expect(tickKindFor(held, observed({ maxStake: 250 }))).toBe("limit");
    expect(tickKindFor(held, observed())).toBeUndefined();
  });

  it("closes a held quote that is withdrawn, suspended or unpriceable", () => {
    expect(tickKindFor(held, undefined)).toBe("close");
    expect(tickKindFor(held, observed({ available: false }))).toBe("close");
    expect(tickKindFor(held, observed({ decimalOdds: 1 }))).toBe("close");
  });
});

describe("diffSnapshot", () => {
  const snapshot = (observedAtMs: number, quotes: BookSnapshot["quotes"]): BookSnapshot => ({
    eventID: "E",
    bookmakerID: "sportsbet",
    sourceID: "feed",
    sourceRank: 1,
    observedAtMs,
    quotes,
  });

  it("closes held quotes missing from the snapshot and keeps only open quotes held", () => {
    const before = HeldQuotes.of([held]);
    const diff = diffSnapshot(
      before,
      snapshot(1_000, [{ oddID: "points-home-game-ml-home", decimalOdds: 2, available: true }]),
    );
    expect(diff.ticks.map((tick) => [tick.oddID, tick.kind])).toEqual([
      ["points-home-game-ml-home", "open"],
      [held.oddID, "close"],
    ]);
    expect([...diff.held].map((quote) => quote.oddID)).toEqual(["points-home-game-ml-home"]);
  });

  it("gives the same tick the same id on a replay", () => {
    const first = diffSnapshot(HeldQuotes.EMPTY, snapshot(1_000, [observed()]));
    const again = diffSnapshot(HeldQuotes.EMPTY, snapshot(1_000, [observed()]));
    expect(again.ticks.map((tick) => tick._id)).toEqual(first.ticks.map((tick) => tick._id));
    expect(first.ticks[0]!._id).toBe(
      tickId({ eventID: "E", bookmakerID: "sportsbet", sourceID: "feed", observedAtMs: 1_000 }, held.oddID, "open"),
    );
  });

  it("is undone by folding its ticks: the books rebuilt from the tick log hold what the diff holds", () => {
    const opened = diffSnapshot(
      HeldQuotes.EMPTY,
      snapshot(1_000, [observed(), { oddID: "x-home-game-ml-home", decimalOdds: 3, available: true }]),
    );
    const moved = diffSnapshot(opened.held, snapshot(2_000, [observed({ decimalOdds: 1.8, maxStake: 100 })]));
    const books = booksFromTicks([...moved.ticks, ...opened.ticks]);
    const book = books.get("E|sportsbet|feed")!;
    expect(book.observedAtMs).toBe(2_000);
    expect(book.quotes).toEqual(moved.held);
  });
});

describe("renderTicks", () => {
  const tick = (change: Partial<TickDocument>): TickDocument => ({
    _id: "t1",
    eventID: "afl_2026-10-25_west_coast_vs_sydney",
    oddID: "points-home-game-ml-home",
    bookmakerID: "sportsbet",
    sourceID: "feed",
    sourceRank: 1,
    seriesKey: "sportsbet|feed",
    changedAt: new Date(Date.UTC(2026, 9, 25, 6, 8, 34, 286)),
    day: "2026-10-25",
    kind: "move",
    bookOdds: "-103",
    decimalOdds: 1.97,
    previousBookOdds: "-116",
    previousDecimalOdds: 1.86,
    line: 45.5,
    isMainLine: true,
    layOdds: 2.02,
    maxStake: 500,
    previousMaxStake: 250,
    ...change,
  });
  /** The contract's object, every nullable field present: what the template must write byte for byte. */
  const contractTick = (t: TickDocument): objects.OddsHistoryTick => ({
    eventID: t.eventID,
    oddID: t.oddID,
    bookmakerID: t.bookmakerID,
    changedAt: t.changedAt.toISOString(),
    kind: t.kind,
    bookOdds: t.bookOdds ?? null,
    decimalOdds: t.decimalOdds ?? null,
    previousBookOdds: t.previousBookOdds ?? null,
    previousDecimalOdds: t.previousDecimalOdds ?? null,
    line: t.line ?? null,
    isMainLine: t.isMainLine ?? null,
    layOdds: t.layOdds ?? null,
    maxStake: t.maxStake ?? null,
    previousMaxStake: t.previousMaxStake ?? null,
  });

  it("writes each tick as JSON.stringify writes the contract's OddsHistoryTick, whatever its values", () => {
    const ticks = [
      tick({}),
      // Opened: no previous price; a market without a line or limits.
      tick({ kind: "open", previousBookOdds: null, previousDecimalOdds: null, line: null, isMainLine: null }),
      tick({ kind: "close", bookOdds: null, decimalOdds: null, layOdds: null, maxStake: null, previousMaxStake: null }),
      // The same strings and instant again (made once per page), then others.
      tick({ _id: "t2", isMainLine: false, line: -0, maxStake: 1e21 }),
      tick({
        changedAt: new Date(Date.UTC(2026, 9, 25, 6, 10)),
        oddID: 'quote"back\\slash\u0001',
        bookmakerID: "tab_é_🏉",
      }),
      // A store may drop nulls: absent fields are written as null; a number JSON cannot hold is null too.
      { ...tick({}), line: undefined, layOdds: undefined, previousBookOdds: undefined } as unknown as TickDocument,
      tick({ decimalOdds: Number.NaN, layOdds: Number.POSITIVE_INFINITY }),
      tick({ kind: "limit", changedAt: new Date(Date.UTC(2026, 9, 25, 6, 8, 34, 286)) }),
    ];
    const rendered = renderTicks(ticks);
    expect(rendered.map((item) => item.toString("utf8"))).toEqual(ticks.map((t) => JSON.stringify(contractTick(t))));
    expect(rendered.every((item) => Buffer.isBuffer(item))).toBe(true);
  });

  it("renders nothing for no ticks", () => {
    expect(renderTicks([])).toEqual([]);
  });
});
