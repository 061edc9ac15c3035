import { booksFromTicks } from "./book-states";
import { HeldQuotes } from "./held-quotes";
import {
  buildTick,
  diffSnapshot,
  tickKindFor,
  type BookSnapshot,
  type HeldQuote,
  type ObservedQuote,
  type TickDocument,
} from "./ticks";

describe("HeldQuotes", () => {
  const quotes: HeldQuote[] = [
    { oddID: "points-home-game-ml-home", decimalOdds: 1.9 },
    { oddID: "points-all-game-ou-over", decimalOdds: 1.87, line: 45.5, isMainLine: true, maxStake: 500 },
    { oddID: "points-all-game-ou-under", decimalOdds: 2.0000000000000004, line: -0.5, isMainLine: false },
    { oddID: "points-away-game-ml-away", decimalOdds: 1.01, layOdds: 1.02, maxStake: 0 },
    { oddID: "points-home-game-sp-home", decimalOdds: 1e6, line: 0, maxStake: 1.5e9 },
  ];

  it("gives back each quote exactly, its absent fields absent, in the order given", () => {
    const packed = HeldQuotes.of(quotes);
    expect(packed.size).toBe(quotes.length);
    expect([...packed]).toStrictEqual(quotes);
    expect(quotes.map((_, i) => packed.at(i))).toStrictEqual(quotes);
    expect([...packed.positions()]).toEqual(quotes.map((quote, i) => [quote.oddID, i]));
  });

  it("holds one copy of an oddID however many decoded copies of it arrive", () => {
    const decoded = (): string => ["points", "home", "game", "ml", "home"].join("-");
    const a = HeldQuotes.of([{ oddID: decoded(), decimalOdds: 2 }]);
    const b = HeldQuotes.of([{ oddID: decoded(), decimalOdds: 3 }]);
    expect([...a][0]!.oddID).toBe([...b][0]!.oddID);
    expect(HeldQuotes.of([])).toBe(HeldQuotes.EMPTY);
  });
});

/** The diff as it was written over a Map of quote objects, before the packed form: the reference. */
function mapDiff(
  held: ReadonlyMap<string, HeldQuote>,
  snapshot: BookSnapshot,
): { ticks: TickDocument[]; held: Map<string, HeldQuote> } {
  const next = new Map<string, HeldQuote>();
  const ticks: TickDocument[] = [];
  const seen = new Set<string>();
  for (const observed of snapshot.quotes) {
    if (seen.has(observed.oddID)) continue;
    seen.add(observed.oddID);
    const previous = held.get(observed.oddID);
    const kind = tickKindFor(previous, observed);
    if (kind) ticks.push(buildTick(snapshot, kind, previous, observed));
    if (kind !== "close" && (previous || kind === "open")) {
      const { available: _available, ...quote } = observed;
      next.set(observed.oddID, quote);
    }
  }
  for (const [oddID, previous] of held) {
    if (!seen.has(oddID)) ticks.push(buildTick(snapshot, "close", previous, undefined));
  }
  return { ticks, held: next };
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("diffSnapshot over packed quotes", () => {
  it("records exactly the ticks, in the same order, and holds exactly the quotes of the Map-based diff", () => {
    const next = random(16);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const oddIDs = Array.from({ length: 40 }, (_, i) => `stat-${i}-game-ou-${i % 2 ? "over" : "under"}`);
    let packed = HeldQuotes.EMPTY;
    let reference = new Map<string, HeldQuote>();
    const all: TickDocument[] = [];
    for (let step = 0; step < 300; step++) {
      const quotes: ObservedQuote[] = [];
      for (const oddID of oddIDs) {
        if (next() < 0.15) continue; // withdrawn
        const quote: ObservedQuote = {
          oddID,
          decimalOdds: pick([1, 1.5, 1.9, 1.91, 2.05, 3.4, Number.NaN]),
          available: next() > 0.05,
        };
        if (next() < 0.6) quote.line = pick([-1.5, 0, 45.5, 46.5]);
        if (next() < 0.6) quote.isMainLine = next() < 0.5;
        if (next() < 0.2) quote.layOdds = pick([1.92, 2.1]);
        if (next() < 0.5) quote.maxStake = pick([0, 100, 250, 500]);
        quotes.push(quote);
        if (next() < 0.03) quotes.push({ ...quote, decimalOdds: 9 }); // a repeat: the first one counts
      }
      quotes.sort(() => next() - 0.5);
      const snapshot: BookSnapshot = {
        eventID: "E",
        bookmakerID: "sportsbet",
        sourceID: "feed",
        sourceRank: 1,
        observedAtMs: 1_000 * (step + 1),
        quotes,
      };
      const ours = diffSnapshot(packed, snapshot);
      const theirs = mapDiff(reference, snapshot);
      expect(ours.ticks).toStrictEqual(theirs.ticks);
      expect([...ours.held]).toStrictEqual([...theirs.held.values()]);
      all.push(...ours.ticks);
      packed = ours.held;
      reference = theirs.held;
    }
    expect(new Set(all.map((tick) => tick.kind))).toEqual(new Set(["open", "move", "limit", "close"]));
    // The books rebuilt from the tick log after a restart hold the same quotes (in the order the ticks first opened them).
    const byOddID = (a: HeldQuote, b: HeldQuote) => a.oddID.localeCompare(b.oddID);
    const rebuilt = [...booksFromTicks(all).get("E|sportsbet|feed")!.quotes].sort(byOddID);
    expect(rebuilt).toStrictEqual([...reference.values()].sort(byOddID));
  });
});
