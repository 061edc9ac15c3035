/**
 * The grader: settles every market kind we price from an event's results. Pure functions, no
 * I/O, no clock. A market is settled once the period it settles on has ended (or the event is
 * cancelled: every outcome void); until then it is pending.
 *
 * Verdicts: won, lost, void (the stake is returned) and dead_heat (a share of winners tied:
 * the payout is scaled by dead_heat_factor). Quarter lines (-6.25, 45.75) split the stake into
 * two bets on the neighbouring half and whole lines; `void_fraction` is the part of the stake
 * returned, so "won, void_fraction 0.5" is a half win and "lost, void_fraction 0.5" a half loss.
 *
 * Between two competitors (tennis, MMA) the feed's home and away are competitor 1 and 2: set
 * betting is a correct score on sets, total games and game handicaps are totals and spreads on
 * the stat games, method of victory a pick among home_ko ... away_decision, total rounds a total
 * on the fight time in rounds, and goes the distance a yes/no.
 */

export type Verdict = "won" | "lost" | "void" | "dead_heat";

export interface Settlement {
  verdict: Verdict;
  /** Payout scale of a dead heat (1 / winners tied); null otherwise. */
  deadHeatFactor: number | null;
  /** Part of the stake returned as void (0.5 on a quarter line that half-pushed); 0 otherwise. */
  voidFraction: number;
}

/** {periodID}.{statEntityID}.{statID} -> value, as events carry them. */
export type Results = Record<string, Record<string, Record<string, number>>>;

export interface GradedSide {
  oddID: string;
  statEntityID: string;
  sideID: string;
  /** The line of this side (spread or total); null for markets without one. */
  line: number | null;
}

export interface GradedMarket {
  statID: string;
  periodID: string;
  betTypeID: string;
  sides: GradedSide[];
}

export interface GradingContext {
  /** The period the market settles on has ended. */
  periodEnded: boolean;
  cancelled: boolean;
}

const WON: Settlement = { verdict: "won", deadHeatFactor: null, voidFraction: 0 };
const LOST: Settlement = { verdict: "lost", deadHeatFactor: null, voidFraction: 0 };
const VOID: Settlement = { verdict: "void", deadHeatFactor: null, voidFraction: 0 };

/** Settlements per oddID, or undefined while the market is pending. */
export function gradeMarket(
  market: GradedMarket,
  results: Results,
  context: GradingContext,
): Map<string, Settlement> | undefined {
  if (context.cancelled) return allSides(market, VOID);
  if (!context.periodEnded) return undefined;
  const stats = new StatReader(results, market.periodID, market.statID);
  switch (market.betTypeID) {
    case "ml":
      return moneyline(market, stats);
    case "ml3way":
      return threeWay(market, stats);
    case "sp":
      return perSide(market, (side) => {
        const own = stats.value(side.statEntityID);
        const other = stats.value(opponent(side.statEntityID));
        if (own === undefined || other === undefined || side.line === null) return undefined;
        return lineBet(own - other + side.line);
      });
    case "ou":
      return perSide(market, (side) => {
        const total = stats.value(side.statEntityID);
        if (total === undefined || side.line === null) return undefined;
        return lineBet(side.sideID === "over" ? total - side.line : side.line - total);
      });
    case "yn":
      return perSide(market, (side) => {
        const value = stats.value(side.statEntityID);
        if (value === undefined) return undefined;
        return value > 0 === (side.sideID === "yes") ? WON : LOST;
      });
    case "eo":
      return perSide(market, (side) => {
        const value = stats.value(side.statEntityID);
        if (value === undefined || !Number.isInteger(value)) return undefined;
        return (Math.abs(value) % 2 === 1) === (side.sideID === "odd") ? WON : LOST;
      });
    case "pick":
      return market.statID === "method" ? methodOfVictory(market, results[market.periodID] ?? {}) : pick(market, stats);
    case "cs":
      return correctScore(market, stats);
    default:
      return undefined;
  }
}

/** Reads one stat of one period; "all" sums home and away, margin is home minus away points. */
class StatReader {
  private readonly period: Record<string, Record<string, number>>;

  constructor(
    results: Results,
    periodID: string,
    private readonly statID: string,
  ) {
    this.period = results[periodID] ?? {};
  }

  value(entity: string): number | undefined {
    const direct = this.period[entity]?.[this.statID];
    if (direct !== undefined) return direct;
    if (entity !== "all") return undefined;
    if (this.statID === "margin") return this.difference("points");
    if (this.statID === "bothteamstoscore") {
      const [home, away] = [this.period.home?.points, this.period.away?.points];
      return home === undefined || away === undefined ? undefined : home > 0 && away > 0 ? 1 : 0;
    }
    const [home, away] = [this.period.home?.[this.statID], this.period.away?.[this.statID]];
    return home === undefined || away === undefined ? undefined : home + away;
  }

  private difference(statID: string): number | undefined {
    const [home, away] = [this.period.home?.[statID], this.period.away?.[statID]];
    return home === undefined || away === undefined ? undefined : home - away;
  }

  /** Every entity of the period that carries the stat (players and teams). */
  entities(): [string, number][] {
    return Object.entries(this.period).flatMap(([entity, stats]) =>
      stats[this.statID] === undefined ? [] : [[entity, stats[this.statID] as number] as [string, number]],
    );
  }
}

function opponent(entity: string): string {
  return entity === "home" ? "away" : entity === "away" ? "home" : entity;
}

function allSides(market: GradedMarket, settlement: Settlement): Map<string, Settlement> {
  return new Map(market.sides.map((side) => [side.oddID, settlement]));
}

/**
 * Each side graded on its own. A side that cannot be graded once its period ended (a player
 * who did not take part, so has no result) is void: the stake is returned.
 */
function perSide(market: GradedMarket, grade: (side: GradedSide) => Settlement | undefined): Map<string, Settlement> {
  return new Map(market.sides.map((side) => [side.oddID, grade(side) ?? VOID]));
}

/** A bet against a line by its margin: ahead won, behind lost, level void; quarter lines split in two. */
export function lineBet(margin: number): Settlement {
  const quarter = Math.abs(Math.round(margin * 4)) % 2 === 1;
  if (!quarter) return margin > 0 ? WON : margin < 0 ? LOST : VOID;
  const halves = [lineBet(margin - 0.25), lineBet(margin + 0.25)];
  const wins = halves.filter((half) => half.verdict === "won").length;
  const voids = halves.filter((half) => half.verdict === "void").length;
  if (wins === 2) return WON;
  if (wins === 1 && voids === 1) return { ...WON, voidFraction: 0.5 };
  if (voids === 1) return { ...LOST, voidFraction: 0.5 };
  return LOST;
}

/** Two-way moneyline: the higher side wins; level is void (no draw to win). */
function moneyline(market: GradedMarket, stats: StatReader): Map<string, Settlement> | undefined {
  const [home, away] = [stats.value("home"), stats.value("away")];
  if (home === undefined || away === undefined) return allSides(market, VOID);
  return perSide(market, (side) => {
    if (home === away) return VOID;
    const winner = home > away ? "home" : "away";
    return side.sideID === winner ? WON : LOST;
  });
}

/** Three-way moneyline: home, draw or away; exactly one side wins. */
function threeWay(market: GradedMarket, stats: StatReader): Map<string, Settlement> | undefined {
  const [home, away] = [stats.value("home"), stats.value("away")];
  if (home === undefined || away === undefined) return allSides(market, VOID);
  const winner = home > away ? "home" : home < away ? "away" : "draw";
  return perSide(market, (side) => (side.sideID === winner ? WON : LOST));
}

const MARGIN_BAND = /^(home|away)(\d+)(?:to(\d+)|plus)$/;

/**
 * Pick-N markets. Margin bands (home1to39, away40plus, draw) settle on the final margin. Otherwise
 * the sides name entities (players, teams) and the highest stat wins; a tie is a dead heat.
 */
function pick(market: GradedMarket, stats: StatReader): Map<string, Settlement> | undefined {
  if (market.sides.every((side) => side.sideID === "draw" || MARGIN_BAND.test(side.sideID))) {
    const margin = stats.value("all");
    if (margin === undefined) return allSides(market, VOID);
    return perSide(market, (side) => (inBand(side.sideID, margin) ? WON : LOST));
  }
  const values = new Map(stats.entities().map(([entity, value]) => [entity.toLowerCase(), value]));
  const listed = market.sides.map((side) => values.get(side.sideID.toLowerCase()));
  const best = Math.max(...listed.filter((value): value is number => value !== undefined));
  if (!Number.isFinite(best)) return allSides(market, VOID);
  const winners = listed.filter((value) => value === best).length;
  return perSide(market, (side) => {
    const value = values.get(side.sideID.toLowerCase());
    if (value === undefined) return VOID;
    if (value !== best) return LOST;
    return winners === 1 ? WON : { verdict: "dead_heat", deadHeatFactor: 1 / winners, voidFraction: 0 };
  });
}

function inBand(sideID: string, margin: number): boolean {
  if (sideID === "draw") return margin === 0;
  const match = MARGIN_BAND.exec(sideID);
  if (!match) return false;
  const signed = match[1] === "home" ? margin : -margin;
  const low = Number(match[2]);
  const high = match[3] === undefined ? Number.POSITIVE_INFINITY : Number(match[3]);
  return signed >= low && signed <= high;
}

const SCORE_SIDE = /^(\d+)_(\d+)$/;

/** Correct score (tennis set betting: 2_1 is two sets to one for competitor 1): exactly one side wins. */
function correctScore(market: GradedMarket, stats: StatReader): Map<string, Settlement> {
  const [home, away] = [stats.value("home"), stats.value("away")];
  if (home === undefined || away === undefined) return allSides(market, VOID);
  return perSide(market, (side) => {
    const score = SCORE_SIDE.exec(side.sideID);
    if (!score) return undefined;
    return Number(score[1]) === home && Number(score[2]) === away ? WON : LOST;
  });
}

const METHOD_SIDE = /^(home|away)_([a-z]+)$/;

/**
 * Method of victory (home_ko, away_submission, ...): the winner (points 1) carries the method it
 * won by as a stat of 1. No winner (a draw, a no contest) voids the market, as bookmakers settle it.
 */
function methodOfVictory(
  market: GradedMarket,
  period: Record<string, Record<string, number>>,
): Map<string, Settlement> {
  const [home, away] = [period.home?.points, period.away?.points];
  if (home === undefined || away === undefined || home === away) return allSides(market, VOID);
  const winner = home > away ? "home" : "away";
  return perSide(market, (side) => {
    const pick = METHOD_SIDE.exec(side.sideID);
    if (!pick) return undefined;
    return pick[1] === winner && (period[winner]?.[pick[2] as string] ?? 0) > 0 ? WON : LOST;
  });
}
