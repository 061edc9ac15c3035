import { SharedInstances } from "@odds/platform";
import type { HeldQuote } from "./ticks";

/** Bits of a held quote's flags byte: which optional fields it has, and its main-line value. */
const HAS_LINE = 1;
const HAS_MAIN_LINE = 2;
const IS_MAIN_LINE = 4;
const HAS_LAY_ODDS = 8;
const HAS_MAX_STAKE = 16;

/** Numbers held per quote, at these offsets. */
const NUMBERS = 4;
const DECIMAL_ODDS = 0;
const LINE = 1;
const LAY_ODDS = 2;
const MAX_STAKE = 3;

/**
 * One copy of each oddID the books hold. Every decode of a RecordQuotes call brings fresh strings for
 * the same few thousand oddIDs; the books keep the pooled copy instead. Cleared when it grows past
 * 200,000 (books keep the strings they reference; only the sharing of later ones restarts).
 */
const pooled = new SharedInstances<string>(200_000);

function pooledOddID(oddID: string): string {
  return pooled.of(oddID, () => oddID);
}

/**
 * The quotes one book holds, packed: the oddIDs (pooled strings) in one array, each quote's numbers
 * in one Float64Array (exact, as the doubles they were) and its optional fields' presence in one byte,
 * in place of a Map entry, an object and boxed numbers per quote (about 41 bytes a quote instead of
 * 223). Immutable; kept in the order the quotes were added, which is the order closes are recorded in.
 */
export class HeldQuotes {
  static readonly EMPTY = new HeldQuotes([], new Float64Array(0), new Uint8Array(0));

  private constructor(
    private readonly oddIDs: readonly string[],
    private readonly numbers: Float64Array,
    private readonly flags: Uint8Array,
  ) {}

  /** These quotes packed, in this order (an oddID appearing twice is held twice: callers pass distinct ones). */
  static of(quotes: Iterable<HeldQuote>): HeldQuotes {
    const list = [...quotes];
    if (list.length === 0) return HeldQuotes.EMPTY;
    const oddIDs = new Array<string>(list.length);
    const numbers = new Float64Array(list.length * NUMBERS);
    const flags = new Uint8Array(list.length);
    list.forEach((quote, i) => {
      oddIDs[i] = pooledOddID(quote.oddID);
      const at = i * NUMBERS;
      numbers[at + DECIMAL_ODDS] = quote.decimalOdds;
      let bits = 0;
      if (quote.line !== undefined) {
        bits |= HAS_LINE;
        numbers[at + LINE] = quote.line;
      }
      if (quote.isMainLine !== undefined) bits |= HAS_MAIN_LINE | (quote.isMainLine ? IS_MAIN_LINE : 0);
      if (quote.layOdds !== undefined) {
        bits |= HAS_LAY_ODDS;
        numbers[at + LAY_ODDS] = quote.layOdds;
      }
      if (quote.maxStake !== undefined) {
        bits |= HAS_MAX_STAKE;
        numbers[at + MAX_STAKE] = quote.maxStake;
      }
      flags[i] = bits;
    });
    return new HeldQuotes(oddIDs, numbers, flags);
  }

  get size(): number {
    return this.oddIDs.length;
  }

  /** The position of each oddID, for look-ups while one snapshot is compared (not kept, so not paid for between calls). */
  positions(): Map<string, number> {
    return new Map(this.oddIDs.map((oddID, i) => [oddID, i]));
  }

  /** The quote at a position, unpacked (its optional fields present only where it had them). */
  at(i: number): HeldQuote {
    const at = i * NUMBERS;
    const bits = this.flags[i]!;
    const quote: HeldQuote = { oddID: this.oddIDs[i]!, decimalOdds: this.numbers[at + DECIMAL_ODDS]! };
    if (bits & HAS_LINE) quote.line = this.numbers[at + LINE]!;
    if (bits & HAS_MAIN_LINE) quote.isMainLine = (bits & IS_MAIN_LINE) !== 0;
    if (bits & HAS_LAY_ODDS) quote.layOdds = this.numbers[at + LAY_ODDS]!;
    if (bits & HAS_MAX_STAKE) quote.maxStake = this.numbers[at + MAX_STAKE]!;
    return quote;
  }

  /** Every quote, unpacked, in order. */
  *[Symbol.iterator](): IterableIterator<HeldQuote> {
    for (let i = 0; i < this.oddIDs.length; i++) yield this.at(i);
  }
}
