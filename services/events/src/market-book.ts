import { packJsonSync, unpackJson } from "@odds/platform";
import type { ContractEvent, ContractOdds } from "./render";

/** oddID -> a side as last seen, without prices. */
export type MarketBookSides = Readonly<Record<string, ContractOdds>>;

/**
 * An event's market book held packed (its JSON raw-deflated, the bytes the store keeps): it is read
 * only when the event's result is graded (an apply that changed the event) or its v1 result is
 * rendered, so the read model keeps no object tree of it. As objects, the books of the full-scale
 * world were 59 MB of the read model's 94 MB of live heap after a load.
 */
export class MarketBook {
  private constructor(
    /** As stored: raw-deflated JSON (packJson). */
    readonly packed: Buffer,
  ) {}

  /** Packs on this thread (an apply packs in its preparation's worker). */
  static pack(sides: MarketBookSides): MarketBook {
    return new MarketBook(packJsonSync(JSON.stringify(sides)));
  }

  /** A book as the store holds it. */
  static stored(packed: Buffer): MarketBook {
    return new MarketBook(packed);
  }

  sides(): Record<string, ContractOdds> {
    return JSON.parse(unpackJson(this.packed).toString("utf8")) as Record<string, ContractOdds>;
  }
}

/**
 * The sides an event has been priced on, as last seen (prices left out): what its result is graded
 * on. Bookmakers close an event's markets when it ends, so the current odds alone would leave a
 * finished event with nothing to grade. Sides seen in `latest` replace those in `previous`; `closed`
 * (sides priced before the event was first written) fills gaps.
 */
export function mergeMarketBook(
  previous: MarketBookSides | undefined,
  latest: ContractEvent,
  closed: MarketBookSides = {},
): Record<string, ContractOdds> {
  const book = new Map<string, ContractOdds>();
  // Sides closed before the event was first written fill gaps only: what was seen later is newer.
  for (const [oddID, side] of Object.entries(closed)) book.set(oddID, withoutPrices(side));
  for (const [oddID, side] of Object.entries(previous ?? {})) book.set(oddID, side);
  for (const [oddID, side] of Object.entries(latest.odds)) book.set(oddID, withoutPrices(side));
  const sorted: Record<string, ContractOdds> = {};
  for (const oddID of [...book.keys()].sort()) sorted[oddID] = book.get(oddID) as ContractOdds;
  return sorted;
}

/** A side as the book keeps it: no alternate lines, no bookmakers' prices (`byBookmaker` empty, in its place). */
function withoutPrices({ altLines: _altLines, ...side }: ContractOdds): ContractOdds {
  side.byBookmaker = {};
  return side;
}
