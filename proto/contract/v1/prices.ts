// How v1 writes a decimal price: the one rounding every v1 renderer uses.

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A decimal price as v1 shows it: decimal_odds to 4 places, implied_probability (1 / decimal_odds) to 6. */
export function v1DecimalPrice(decimal: number): { decimal_odds: number; implied_probability: number } {
  return { decimal_odds: round(decimal, 4), implied_probability: round(1 / decimal, 6) };
}
