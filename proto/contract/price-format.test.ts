import {
  americanToDecimal,
  decimalToAmerican,
  formatLine,
  impliedProbability,
  InvalidPriceError,
  probabilityToAmerican,
} from "./price-format";

describe("American and decimal odds", () => {
  test.each([
    [2.5, "+150"],
    [1.909090909, "-110"],
    [2, "+100"],
    [3, "+200"],
    [1.5, "-200"],
    [1.01, "-10000"],
    [101, "+10000"],
    [1.91, "-110"],
    [2.04, "+104"],
  ])("decimal %p is American %p", (decimal, american) => {
    expect(decimalToAmerican(decimal)).toBe(american);
  });

  test("a price a hair under even money is shown as +100, never -100", () => {
    expect(decimalToAmerican(1.9999)).toBe("+100");
    expect(decimalToAmerican(1.995)).toBe("-101");
  });

  test.each([
    ["+150", 2.5],
    ["-110", 1.9090909],
    ["+100", 2],
    ["-100", 2],
    ["-200", 1.5],
    ["+10000", 101],
  ])("American %p is decimal %p", (american, decimal) => {
    expect(americanToDecimal(american)).toBeCloseTo(decimal, 6);
  });

  test("American prices round-trip through decimal", () => {
    for (const american of ["+100", "+101", "+150", "+333", "-105", "-110", "-250", "-1000"]) {
      expect(decimalToAmerican(americanToDecimal(american))).toBe(american);
    }
  });

  test.each([["150"], ["+"], ["-50"], ["+1.5"], [""], ["abc"]])("%p is not an American price", (text) => {
    expect(() => americanToDecimal(text)).toThrow(InvalidPriceError);
  });

  test.each([[1], [0.5], [0], [-2], [Number.NaN], [Number.POSITIVE_INFINITY]])("decimal %p is rejected", (decimal) => {
    expect(() => decimalToAmerican(decimal)).toThrow(InvalidPriceError);
  });

  test("implied probability is the reciprocal of the decimal price", () => {
    expect(impliedProbability(2)).toBe(0.5);
    expect(impliedProbability(4)).toBe(0.25);
  });

  test("a probability maps to the American price of its fair decimal odds", () => {
    expect(probabilityToAmerican(0.5)).toBe("+100");
    expect(probabilityToAmerican(0.4)).toBe("+150");
    expect(probabilityToAmerican(0.75)).toBe("-300");
    expect(() => probabilityToAmerican(0)).toThrow(InvalidPriceError);
    expect(() => probabilityToAmerican(1)).toThrow(InvalidPriceError);
  });
});

describe("lines", () => {
  test("spreads carry a sign, totals do not", () => {
    expect(formatLine(-6.5, true)).toBe("-6.5");
    expect(formatLine(6.5, true)).toBe("+6.5");
    expect(formatLine(0, true)).toBe("0");
    expect(formatLine(45.5, false)).toBe("45.5");
    expect(formatLine(-0.25, true)).toBe("-0.25");
  });
});
