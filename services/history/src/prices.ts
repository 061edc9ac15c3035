/**
 * American odds as the contract prints them: a signed integer string ("+150", "-110").
 * Decimal 2.0 is even money, printed "+100".
 */
export function americanOdds(decimalOdds: number): string {
  if (decimalOdds >= 2) return `+${Math.round((decimalOdds - 1) * 100)}`;
  return `-${Math.round(100 / (decimalOdds - 1))}`;
}

/** A decimal price a bookmaker can actually offer (a stake returns more than itself). */
export function isOfferablePrice(decimalOdds: number): boolean {
  return Number.isFinite(decimalOdds) && decimalOdds > 1;
}
