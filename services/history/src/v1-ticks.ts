import { InvalidArgumentError } from "@odds/platform";
import { oddId, v1 } from "@odds/proto";
import type { EventRef } from "./event-refs";
import type { TickDocument } from "./ticks";

/**
 * v1's rules for odds history (the contract's Versioning section): one event, a window of at most
 * 24 hours that starts no earlier than the league's history start, v1 ids and decimal prices.
 */

const MAX_WINDOW_MS = v1.V1_HISTORY_MAX_WINDOW_MS;

/**
 * The window of a v1 request. Defaults: `to` = now (or `from` + 24 hours), `from` = `to` - 24 hours.
 * A longer window is refused naming `to`; a `from` before the league's history start naming `from`.
 * A default window reaching before the start is cut at it; a read stops at now (`TickReader`).
 */
export function resolveV1Window(
  event: EventRef,
  fromMs: number | undefined,
  toMs: number | undefined,
  nowMs: number,
  historyStarts: v1.HistoryStarts,
): { fromMs: number; toMs: number } {
  const to = toMs ?? (fromMs !== undefined ? fromMs + MAX_WINDOW_MS : nowMs);
  const from = fromMs ?? to - MAX_WINDOW_MS;
  if (from >= to) throw new InvalidArgumentError("from", "must be before to");
  if (to - from > MAX_WINDOW_MS)
    throw new InvalidArgumentError("to", "from and to span more than 24 hours (at most 24)");
  const startMs = historyStarts.msOf(event.leagueID);
  if (fromMs !== undefined && fromMs < startMs) {
    throw new InvalidArgumentError(
      "from",
      `${event.leagueID} history starts at ${new Date(startMs).toISOString()}; from must not be earlier`,
    );
  }
  return { fromMs: Math.max(from, startMs), toMs: to };
}

/** Keeps ticks of the asked markets and outcomes (v1 ids); both given: a tick must match both. */
export function v1TickFilter(marketIDs: readonly string[], outcomeIDs: readonly string[]): (oddID: string) => boolean {
  if (marketIDs.length === 0 && outcomeIDs.length === 0) return () => true;
  const markets = new Set(marketIDs);
  const outcomes = new Set(outcomeIDs);
  const decided = new Map<string, boolean>();
  return (oddID) => {
    let keep = decided.get(oddID);
    if (keep === undefined) {
      keep =
        (markets.size === 0 || markets.has(v1MarketIdOf(oddID))) &&
        (outcomes.size === 0 || outcomes.has(v1.v1Id("outcome", oddID)));
      decided.set(oddID, keep);
    }
    return keep;
  };
}

function v1MarketIdOf(oddID: string): string {
  const parts = oddId.splitOddID(oddID);
  return v1.v1Id("market", parts ? oddId.marketGroupID(parts) : oddID);
}

/** A stored tick as a v1 OddsTick. A close (or a price not above 1) has null decimal odds, never 0. */
export function toV1Tick(tick: TickDocument): v1.V1OddsTick {
  const price = tick.decimalOdds !== null && tick.decimalOdds > 1 ? v1.v1DecimalPrice(tick.decimalOdds) : null;
  const previous = tick.previousDecimalOdds !== null && tick.previousDecimalOdds > 1 ? tick.previousDecimalOdds : null;
  return {
    event_id: v1.v1Id("event", tick.eventID),
    market_id: v1MarketIdOf(tick.oddID),
    outcome_id: v1.v1Id("outcome", tick.oddID),
    bookmaker: tick.bookmakerID,
    changed_at: tick.changedAt.toISOString(),
    kind: tick.kind,
    decimal_odds: price?.decimal_odds ?? null,
    implied_probability: price?.implied_probability ?? null,
    previous_decimal_odds: previous === null ? null : v1.v1DecimalPrice(previous).decimal_odds,
    line: tick.line ?? null,
    is_main_line: tick.isMainLine ?? null,
    lay_odds: tick.layOdds ?? null,
    max_stake: tick.maxStake ?? null,
    previous_max_stake: tick.previousMaxStake ?? null,
  };
}

/** v1 usage of a tick: the record, plus its bookmaker price when it has one. */
export function v1ObjectsOf(tick: v1.V1OddsTick): number {
  return tick.decimal_odds === null ? 1 : 2;
}
