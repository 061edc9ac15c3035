// Price formats (shared by ingest and the events service's v1 rendering). American odds are signed integer strings ("+150", "-110", even money "+100");
// decimal odds are the same price as a number (stake included).

export class InvalidPriceError extends Error {
  override name = "InvalidPriceError";
}

/** Implied probability of a decimal price (vig included when the price carries it). */
export function impliedProbability(decimal: number): number {
  assertDecimal(decimal);
  return 1 / decimal;
}

export function decimalToAmerican(decimal: number): string {
  assertDecimal(decimal);
  if (decimal >= 2) return `+${Math.round((decimal - 1) * 100)}`;
  const american = Math.round(100 / (decimal - 1));
  // 1.999 rounds to -100, which is the same price as even money.
  return american === 100 ? "+100" : `-${american}`;
}

export function americanToDecimal(american: string): number {
  const match = /^([+-])(\d+)$/.exec(american);
  if (!match) throw new InvalidPriceError(`not an American price: ${JSON.stringify(american)}`);
  const value = Number(match[2]);
  if (value < 100) throw new InvalidPriceError(`American prices start at 100: ${american}`);
  return match[1] === "+" ? 1 + value / 100 : 1 + 100 / value;
}

export function probabilityToAmerican(probability: number): string {
  if (!(probability > 0 && probability < 1)) throw new InvalidPriceError(`probability out of (0, 1): ${probability}`);
  return decimalToAmerican(1 / probability);
}

function assertDecimal(decimal: number): void {
  if (!Number.isFinite(decimal) || decimal <= 1)
    throw new InvalidPriceError(`decimal price must be above 1: ${decimal}`);
}

/** A line as the contract shows it: "-6.5", "+6.5" for spreads, "45.5" for totals. */
export function formatLine(line: number, signed: boolean): string {
  const text = Number.isInteger(line * 2) ? String(line) : line.toFixed(2).replace(/0+$/, "");
  return signed && line > 0 ? `+${text}` : text;
}
