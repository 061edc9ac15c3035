/**
 * Settling an event once: the grader's verdicts are recorded when a market first settles and kept
 * as they are (a later read, restart or replay gives the same verdicts). They change only when the
 * source marks the event's results corrected after the correction they reflect; the correction
 * is recorded with what it changed. Pure: no I/O, no clock (times come from the cycle).
 */
import { oddId } from "@odds/proto";
import type { ContractEvent, ContractOdds } from "../render";
import { gradeMarket, type Settlement } from "./grader";

export interface SettledMarket {
  /** Source write time of the cycle that settled (or last re-settled) the market. */
  settledAtMs: number;
  /** oddID -> settlement, for every side of the market. */
  outcomes: Record<string, Settlement>;
}

/** Competitor 1 / home and competitor 2 / away scores; null where the source carries none. */
export interface Scores {
  home: number | null;
  away: number | null;
}

export interface OutcomeChange {
  marketGroupID: string;
  oddID: string;
  previous: Settlement;
  settlement: Settlement;
}

export interface Correction {
  /** When the source corrected the results. */
  correctedAtMs: number;
  scoresBefore: Scores;
  scores: Scores;
  /** Settled outcomes whose settlement the correction changed. */
  changes: OutcomeChange[];
}

export interface SettlementBook {
  /** The source's results correction the verdicts reflect; 0 = the results as first seen. */
  resultsCorrectedAtMs: number;
  /** Scores when verdicts were last settled: what a correction changes them from. */
  scores: Scores;
  /** marketGroupID -> its settlement, for settled markets only (pending ones are absent). */
  markets: Record<string, SettledMarket>;
  corrections: Correction[];
}

export interface MarketSides {
  groupID: string;
  sides: ContractOdds[];
}

/** A market book's sides grouped by market (every side of one marketGroupID), in oddID order. */
export function marketsOf(odds: Readonly<Record<string, ContractOdds>>): MarketSides[] {
  const groups = new Map<string, ContractOdds[]>();
  for (const side of Object.values(odds)) {
    const groupID = oddId.marketGroupID(side);
    const sides = groups.get(groupID) ?? [];
    sides.push(side);
    groups.set(groupID, sides);
  }
  return [...groups].map(([groupID, sides]) => ({ groupID, sides }));
}

/** A spread or total as a number; null for markets without one. */
export function lineOf(text: string | null | undefined): number | null {
  if (text === null || text === undefined || text === "") return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Whether the period a side settles on has ended. */
function periodEnded(event: ContractEvent, side: ContractOdds): boolean {
  if (side.ended || event.status.periods.ended.includes(side.periodID)) return true;
  return side.periodID === "game" && (event.status.ended || event.status.finalized);
}

/** The grader's settlements from the current results: marketGroupID -> oddID -> settlement, settled markets only. */
export function gradeBook(
  event: ContractEvent,
  marketBook: Readonly<Record<string, ContractOdds>>,
): Map<string, Record<string, Settlement>> {
  const graded = new Map<string, Record<string, Settlement>>();
  for (const { groupID, sides } of marketsOf(marketBook)) {
    const first = sides[0] as ContractOdds;
    const settlements = gradeMarket(
      {
        statID: first.statID,
        periodID: first.periodID,
        betTypeID: first.betTypeID,
        sides: sides.map((side) => ({
          oddID: side.oddID,
          statEntityID: side.statEntityID,
          sideID: side.sideID,
          line: lineOf(side.bookSpread ?? side.bookOverUnder),
        })),
      },
      event.results,
      {
        periodEnded: sides.every((side) => periodEnded(event, side)),
        cancelled: event.status.cancelled || sides.every((side) => side.cancelled),
      },
    );
    if (settlements) graded.set(groupID, Object.fromEntries(settlements));
  }
  return graded;
}

function scoresOf(event: ContractEvent): Scores {
  return { home: event.teams.home?.score ?? null, away: event.teams.away?.score ?? null };
}

function sameSettlement(a: Settlement, b: Settlement): boolean {
  return a.verdict === b.verdict && a.deadHeatFactor === b.deadHeatFactor && a.voidFraction === b.voidFraction;
}

/**
 * The event's settlement after a cycle at `atMs`: markets settled before keep their verdicts;
 * newly settled markets are added; when `resultsCorrectedAtMs` is newer than the correction the
 * previous settlement reflects, every settled market is re-graded and the correction recorded
 * (a correction seen before anything was settled is simply the result settled on).
 */
export function settle(
  previous: SettlementBook | undefined,
  event: ContractEvent,
  marketBook: Readonly<Record<string, ContractOdds>>,
  resultsCorrectedAtMs: number,
  atMs: number,
): SettlementBook {
  const graded = gradeBook(event, marketBook);
  const settledBefore = previous !== undefined && Object.keys(previous.markets).length > 0;
  const corrected = settledBefore && resultsCorrectedAtMs > previous.resultsCorrectedAtMs;
  const markets: Record<string, SettledMarket> = { ...previous?.markets };
  const changes: OutcomeChange[] = [];
  let newlySettled = false;
  for (const [groupID, outcomes] of graded) {
    const before = markets[groupID];
    if (!before) {
      markets[groupID] = { settledAtMs: atMs, outcomes };
      newlySettled = true;
      continue;
    }
    if (!corrected) continue;
    const changed = Object.entries(outcomes).flatMap(([oddID, settlement]) => {
      const was = before.outcomes[oddID];
      return was && !sameSettlement(was, settlement)
        ? [{ marketGroupID: groupID, oddID, previous: was, settlement }]
        : [];
    });
    if (changed.length > 0) {
      markets[groupID] = { settledAtMs: atMs, outcomes };
      changes.push(...changed);
    }
  }
  const scores = newlySettled || corrected || !previous ? scoresOf(event) : previous.scores;
  const corrections = [...(previous?.corrections ?? [])];
  if (corrected)
    corrections.push({ correctedAtMs: resultsCorrectedAtMs, scoresBefore: previous.scores, scores, changes });
  return {
    resultsCorrectedAtMs: Math.max(resultsCorrectedAtMs, previous?.resultsCorrectedAtMs ?? 0),
    scores,
    markets: Object.fromEntries(
      Object.keys(markets)
        .sort()
        .map((groupID) => [groupID, markets[groupID] as SettledMarket]),
    ),
    corrections,
  };
}
