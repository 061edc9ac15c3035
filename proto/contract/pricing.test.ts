import { consensusOf, deVig, fairPricesOf, type Consensus, type SideQuote } from "./pricing";

const q = (bookmakerID: string, decimal: number, available = true, line?: number): SideQuote => ({
  bookmakerID,
  decimal,
  available,
  line,
});

describe("consensus", () => {
  test("is the median implied probability of the bookmakers with the side open (odd count)", () => {
    const consensus = consensusOf([q("a", 2), q("b", 2.5), q("c", 1.8)]);
    expect(consensus?.probability).toBeCloseTo(0.5, 10);
    expect(consensus?.available).toBe(true);
  });

  test("averages the two middle probabilities for an even count", () => {
    const consensus = consensusOf([q("a", 2), q("b", 4), q("c", 1.25), q("d", 5)]);
    expect(consensus?.probability).toBeCloseTo((0.25 + 0.5) / 2, 10);
  });

  test("ignores suspended sides while any bookmaker has the side open", () => {
    const consensus = consensusOf([q("a", 2), q("b", 1.1, false)]);
    expect(consensus?.probability).toBeCloseTo(0.5, 10);
  });

  test("falls back to the suspended prices, flagged unavailable, when every side is suspended", () => {
    const consensus = consensusOf([q("a", 2, false), q("b", 4, false)]);
    expect(consensus?.available).toBe(false);
    expect(consensus?.probability).toBeCloseTo(0.375, 10);
  });

  test("is undefined when no bookmaker lists the side", () => {
    expect(consensusOf([])).toBeUndefined();
  });

  test("takes the lower middle line, a line some bookmaker really offers", () => {
    expect(consensusOf([q("a", 1.9, true, -6.5), q("b", 1.9, true, -7.5), q("c", 1.9, true, -5.5)])?.line).toBe(-6.5);
    expect(consensusOf([q("a", 1.9, true, -6.5), q("b", 1.9, true, -7.5)])?.line).toBe(-7.5);
    expect(consensusOf([q("a", 1.9)])?.line).toBeUndefined();
  });
});

describe("de-vig", () => {
  test("scales implied probabilities to sum to one", () => {
    const fair = deVig([1 / 1.9, 1 / 1.9]);
    expect(fair).toEqual([0.5, 0.5]);
    const three = deVig([0.5, 0.3, 0.3]);
    expect(three.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(three[0]).toBeCloseTo(0.5 / 1.1, 12);
  });

  test("needs at least two sides", () => {
    expect(() => deVig([0.5])).toThrow(RangeError);
    expect(() => deVig([0, 0])).toThrow(RangeError);
  });
});

describe("fair prices", () => {
  const consensusFor = (sides: Map<string, SideQuote[]>) =>
    new Map([...sides].map(([oddID, quotes]) => [oddID, consensusOf(quotes) as Consensus]));

  test("come from sharp bookmakers that price every side, averaged over them", () => {
    const sides = new Map([
      ["h", [q("pinnacle", 1.8), q("betfair_ex_au", 1.7), q("sportsbet", 1.6)]],
      ["a", [q("pinnacle", 2.1), q("betfair_ex_au", 2.4), q("sportsbet", 2.2)]],
    ]);
    const fair = fairPricesOf(sides, consensusFor(sides), ["pinnacle", "betfair_ex_au"]);
    expect(fair?.fromSharp).toBe(true);
    const pin = deVig([1 / 1.8, 1 / 2.1]);
    const bf = deVig([1 / 1.7, 1 / 2.4]);
    expect(fair?.bySide.get("h")?.probability).toBeCloseTo(((pin[0] ?? 0) + (bf[0] ?? 0)) / 2, 12);
    expect(fair?.bySide.get("a")?.probability).toBeCloseTo(((pin[1] ?? 0) + (bf[1] ?? 0)) / 2, 12);
  });

  test("skip a sharp bookmaker with a side missing or suspended", () => {
    const sides = new Map([
      ["h", [q("pinnacle", 1.8), q("betfair_ex_au", 1.5, false)]],
      ["a", [q("pinnacle", 2.1), q("betfair_ex_au", 3)]],
    ]);
    const fair = fairPricesOf(sides, consensusFor(sides), ["pinnacle", "betfair_ex_au"]);
    expect(fair?.bySide.get("h")?.probability).toBeCloseTo(deVig([1 / 1.8, 1 / 2.1])[0] ?? 0, 12);
  });

  test("fall back to the de-vigged consensus, flagged, when no sharp bookmaker prices every side", () => {
    const sides = new Map([
      ["over", [q("sportsbet", 1.8, true, 45.5), q("tab", 1.9, true, 45.5), q("pinnacle", 1.95, true, 45.5)]],
      ["under", [q("sportsbet", 2, true, 45.5), q("tab", 1.9, true, 45.5)]],
    ]);
    const fair = fairPricesOf(sides, consensusFor(sides), ["pinnacle"]);
    expect(fair?.fromSharp).toBe(false);
    const over = consensusOf(sides.get("over") ?? [])?.probability ?? 0;
    const under = consensusOf(sides.get("under") ?? [])?.probability ?? 0;
    expect(fair?.bySide.get("over")?.probability).toBeCloseTo(over / (over + under), 12);
    expect(fair?.bySide.get("over")?.line).toBe(45.5);
  });

  test("de-vig every side of a pick-N market together", () => {
    const sides = new Map([
      ["x", [q("pinnacle", 3)]],
      ["y", [q("pinnacle", 3)]],
      ["z", [q("pinnacle", 3)]],
    ]);
    const fair = fairPricesOf(sides, consensusFor(sides), ["pinnacle"]);
    for (const side of ["x", "y", "z"]) expect(fair?.bySide.get(side)?.probability).toBeCloseTo(1 / 3, 12);
  });

  test("are undefined for a one-sided market", () => {
    const sides = new Map([["yes", [q("pinnacle", 1.5)]]]);
    expect(fairPricesOf(sides, consensusFor(sides), ["pinnacle"])).toBeUndefined();
  });
});
