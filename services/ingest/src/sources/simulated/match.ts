// How a simulated match unfolds: team strengths, the latent expectation that prices follow,
// the period clock, scores and results. Everything is a pure function of (seed, event, time).
import { competitorSport } from "./competitors";
import type { FixturePlayer } from "./fixtures";
import { playerResult, settleFirstTryScorer } from "./player-markets";
import { drift, normal, poisson, unit } from "./random";
import { teamID, upperToken, type ScheduledEvent } from "./schedule";

const MINUTE_MS = 60_000;

export interface PeriodSpan {
  periodID: string;
  startMin: number;
  endMin: number;
  /** Share of the game's scoring expected in this period. */
  share: number;
  /** Leaf periods are the ones that score; the others aggregate leaves. */
  leaf: boolean;
}

export interface SportProfile {
  /** Scoring model: normal margin/total (football codes, cricket) or Poisson goals (soccer). */
  model: "normal" | "poisson";
  homeAdvantage: number;
  strengthScale: number;
  marginSd: number;
  totalMean: number;
  totalSd: number;
  /** Amplitude of the pre-match drift of the expected margin. */
  marginDrift: number;
  totalDrift: number;
  /** Half-point steps of spread and total lines. */
  spreadStep: number;
  totalStep: number;
  periods: PeriodSpan[];
  durationMin: number;
}

const span = (periodID: string, startMin: number, endMin: number, share: number, leaf: boolean): PeriodSpan => ({
  periodID,
  startMin,
  endMin,
  share,
  leaf,
});

export const SPORT_PROFILES: Record<string, SportProfile> = {
  AUSSIE_RULES: {
    model: "normal",
    homeAdvantage: 7,
    strengthScale: 28,
    marginSd: 36,
    totalMean: 166,
    totalSd: 26,
    marginDrift: 5,
    totalDrift: 6,
    spreadStep: 1,
    totalStep: 1,
    durationMin: 160,
    periods: [
      span("1q", 0, 32, 0.25, true),
      span("2q", 38, 70, 0.25, true),
      span("3q", 90, 122, 0.25, true),
      span("4q", 128, 160, 0.25, true),
      span("1h", 0, 70, 0.5, false),
      span("2h", 90, 160, 0.5, false),
    ],
  },
  RUGBY_LEAGUE: {
    model: "normal",
    homeAdvantage: 2.5,
    strengthScale: 11,
    marginSd: 15,
    totalMean: 43,
    totalSd: 11,
    marginDrift: 1.5,
    totalDrift: 2,
    spreadStep: 1,
    totalStep: 1,
    durationMin: 100,
    periods: [span("1h", 0, 45, 0.5, true), span("2h", 55, 100, 0.5, true)],
  },
  SOCCER: {
    model: "poisson",
    homeAdvantage: 0.25,
    strengthScale: 0.45,
    marginSd: 1.6,
    totalMean: 2.75,
    totalSd: 1.6,
    marginDrift: 0.12,
    totalDrift: 0.15,
    spreadStep: 1,
    totalStep: 1,
    durationMin: 112,
    periods: [span("1h", 0, 47, 0.45, true), span("2h", 62, 112, 0.55, true)],
  },
  CRICKET: {
    model: "normal",
    homeAdvantage: 4,
    strengthScale: 14,
    marginSd: 30,
    totalMean: 336,
    totalSd: 40,
    marginDrift: 4,
    totalDrift: 8,
    spreadStep: 1,
    totalStep: 1,
    durationMin: 195,
    periods: [span("1i", 0, 88, 0.5, true), span("2i", 108, 195, 0.5, true), span("1ix6", 0, 26, 0.155, false)],
  },
};

export type MatchPhase = "scheduled" | "delayed" | "live" | "ended" | "final" | "cancelled";

/** Team strength in [-1, 1], slowly changing over the season. */
function strength(seed: string, teamKey: string, atMs: number): number {
  const base = unit(seed, "strength", teamKey) * 2 - 1;
  return Math.max(-1, Math.min(1, base * 0.85 + 0.15 * drift(atMs, 21 * 86_400_000, seed, "form", teamKey)));
}

export interface Expectation {
  /** Expected home minus away (points, runs or goals). */
  margin: number;
  /** Expected combined score. */
  total: number;
}

/** The market's view of the game at an instant before kickoff: strengths plus news-driven drift. */
export function preMatchExpectation(seed: string, event: ScheduledEvent, atMs: number): Expectation {
  const key = `${seed}|${event.eventID}|${Math.min(atMs, event.actualStartMs)}`;
  const cached = expectations.get(key);
  if (cached) return cached;
  if (expectations.size > EXPECTATIONS_HELD) expectations.clear();
  const expectation = computeExpectation(seed, event, atMs);
  expectations.set(key, expectation);
  return expectation;
}

/** Pricing asks for the same (event, instant) many times per snapshot. */
const expectations = new Map<string, Expectation>();
/**
 * A cycle generates its events one at a time, so a few events' instants are all the reuse there is; held
 * longer, the memo was a standing part of ingest's heap between cycles (docs/performance.md "Ingest memory").
 */
const EXPECTATIONS_HELD = 5_000;

function computeExpectation(seed: string, event: ScheduledEvent, atMs: number): Expectation {
  const profile = profileOf(event);
  const home = strength(seed, teamID(event.home, event.league), event.startsAtMs);
  const away = strength(seed, teamID(event.away, event.league), event.startsAtMs);
  const t = Math.min(atMs, event.actualStartMs);
  const margin =
    (home - away) * profile.strengthScale +
    profile.homeAdvantage +
    profile.marginDrift * drift(t, 10 * 3_600_000, seed, "mu", event.eventID);
  const total =
    profile.totalMean * (1 + 0.06 * (unit(seed, "pace", event.eventID) * 2 - 1)) +
    profile.totalDrift * drift(t, 12 * 3_600_000, seed, "tau", event.eventID);
  return { margin, total };
}

export function profileOf(event: ScheduledEvent): SportProfile {
  const profile = SPORT_PROFILES[event.league.sportID];
  if (!profile) throw new Error(`no simulated sport profile for ${event.league.sportID}`);
  return profile;
}

/** Minutes from start to end: fixed per team sport; per event between two competitors. */
function durationMin(seed: string, event: ScheduledEvent): number {
  return competitorSport(event.league.sportID)?.durationMin(seed, event) ?? profileOf(event).durationMin;
}

export function phaseAt(seed: string, event: ScheduledEvent, atMs: number): MatchPhase {
  if (event.cancelledAtMs !== undefined && atMs >= event.cancelledAtMs) return "cancelled";
  const endMs = event.actualStartMs + durationMin(seed, event) * MINUTE_MS;
  if (atMs < event.actualStartMs) {
    return event.delayed && atMs >= event.startsAtMs - 15 * MINUTE_MS ? "delayed" : "scheduled";
  }
  if (atMs < endMs) return "live";
  return atMs < endMs + 60 * MINUTE_MS ? "ended" : "final";
}

export function endMs(seed: string, event: ScheduledEvent): number {
  return event.actualStartMs + durationMin(seed, event) * MINUTE_MS;
}

/** Final points of one team in one leaf period, fixed from the kickoff expectation. */
function leafPoints(seed: string, event: ScheduledEvent, side: "home" | "away", period: PeriodSpan): LeafScore {
  const profile = profileOf(event);
  const expectation = preMatchExpectation(seed, event, event.actualStartMs);
  const teamMean = Math.max(0.2, (expectation.total + (side === "home" ? 1 : -1) * expectation.margin) / 2);
  const mean = teamMean * period.share;
  const key = [seed, "score", event.eventID, side, period.periodID] as const;
  switch (event.league.sportID) {
    case "AUSSIE_RULES": {
      const goals = Math.max(0, Math.round(mean / 6.9 + normal(...key, "g") * 1.6));
      const behinds = Math.max(0, Math.round((mean / 6.9) * 0.85 + normal(...key, "b") * 1.3));
      return { points: goals * 6 + behinds, goals, behinds };
    }
    case "RUGBY_LEAGUE": {
      const tries = poisson(mean / 5.6, ...key, "t");
      const conversions = Math.round(tries * (0.6 + unit(...key, "c") * 0.35));
      const penaltyGoals = unit(...key, "p") < 0.3 ? 1 : 0;
      return { points: tries * 4 + conversions * 2 + penaltyGoals * 2, tries };
    }
    case "SOCCER":
      return { points: poisson(mean, ...key, "goals") };
    default: {
      const runs = Math.max(60, Math.round(teamMean * 2 * 0.5 + normal(...key, "r") * profile.totalSd * 0.5));
      return { points: runs, wickets: Math.min(10, Math.max(1, Math.round(6 + normal(...key, "w") * 2.2))) };
    }
  }
}

type LeafScore = { points: number } & Record<string, number>;

export interface MatchState {
  phase: MatchPhase;
  currentPeriodID?: string;
  periodsStarted: string[];
  periodsEnded: string[];
  /** Minutes into the game (including breaks), clamped to the duration. */
  elapsedMin: number;
  homeScore?: number;
  awayScore?: number;
  /** period -> HOME/AWAY/playerID -> stat -> value, for periods that have ended or started. */
  results: Record<string, Record<string, Record<string, number>>>;
  /** When the final result was corrected, once it has been. */
  resultsCorrectedAtMs?: number;
}

/** A final score corrected after the event (a goal awarded on review, a scorer's error). */
interface ResultCorrection {
  atMs: number;
  side: "home" | "away";
  /** Points added in the last scoring period, and the stat that scored them. */
  points: number;
  stat?: string;
}

/** Share of finished team-sport events whose final score is corrected, and when (after the result is final). */
const CORRECTION_SHARE = 0.08;
const CORRECTION_AFTER_END_MIN = 90;
const CORRECTION_POINTS: Record<string, { points: number; stat?: string }> = {
  AUSSIE_RULES: { points: 1, stat: "behinds" },
  RUGBY_LEAGUE: { points: 2 },
  SOCCER: { points: 1 },
  CRICKET: { points: 4 },
};

/** The correction of this event's final score, deterministic per seed; undefined for most events. */
export function correctionOf(seed: string, event: ScheduledEvent): ResultCorrection | undefined {
  const scoring = CORRECTION_POINTS[event.league.sportID];
  if (!scoring || event.cancelledAtMs !== undefined || unit(seed, "correction", event.eventID) >= CORRECTION_SHARE)
    return undefined;
  // Cricket: the side that batted in the last innings, the only one that scored in it.
  const side =
    event.league.sportID === "CRICKET"
      ? battingFirst(seed, event) === "home"
        ? "away"
        : "home"
      : unit(seed, "correction-side", event.eventID) < 0.5
        ? "home"
        : "away";
  return { atMs: endMs(seed, event) + CORRECTION_AFTER_END_MIN * MINUTE_MS, side, ...scoring };
}

/** Cricket: who bats in which innings (the home side bats first when the toss says so). */
export function battingFirst(seed: string, event: ScheduledEvent): "home" | "away" {
  return unit(seed, "toss", event.eventID) < 0.5 ? "home" : "away";
}

export function matchStateAt(seed: string, event: ScheduledEvent, atMs: number): MatchState {
  const phase = phaseAt(seed, event, atMs);
  const state: MatchState = { phase, periodsStarted: [], periodsEnded: [], elapsedMin: 0, results: {} };
  if (phase === "scheduled" || phase === "delayed" || phase === "cancelled") return state;
  const elapsedMin = Math.min(durationMin(seed, event), (atMs - event.actualStartMs) / MINUTE_MS);
  state.elapsedMin = elapsedMin;
  const competitor = competitorSport(event.league.sportID);
  if (competitor) return competitor.stateAt(seed, event, state);
  const profile = profileOf(event);

  const cricketFirst = event.league.sportID === "CRICKET" ? battingFirst(seed, event) : undefined;
  const correction = correctionOf(seed, event);
  const corrected = correction !== undefined && atMs >= correction.atMs ? correction : undefined;
  const lastLeaf = profile.periods.filter((p) => p.leaf).at(-1)?.periodID;
  const totals = { home: 0, away: 0 };
  const periodScores: Record<string, { home: LeafScore; away: LeafScore }> = {};
  for (const period of profile.periods.filter((p) => p.leaf)) {
    if (elapsedMin < period.startMin) continue;
    const progress = Math.min(1, (elapsedMin - period.startMin) / (period.endMin - period.startMin));
    const partial = (side: "home" | "away"): LeafScore => {
      if (cricketFirst) {
        const innings = period.periodID === "1i" ? cricketFirst : cricketFirst === "home" ? "away" : "home";
        if (side !== innings) return { points: 0, wickets: 0 };
      }
      const full = leafPoints(seed, event, side, period);
      if (corrected?.side === side && period.periodID === lastLeaf) {
        full.points += corrected.points;
        if (corrected.stat) full[corrected.stat] = (full[corrected.stat] ?? 0) + 1;
      }
      return Object.fromEntries(
        Object.entries(full).map(([stat, value]) => [stat, Math.floor(value * progress)]),
      ) as LeafScore;
    };
    const scores = { home: partial("home"), away: partial("away") };
    periodScores[period.periodID] = scores;
    totals.home += scores.home.points;
    totals.away += scores.away.points;
    state.periodsStarted.push(period.periodID);
    if (progress >= 1) state.periodsEnded.push(period.periodID);
  }
  // Aggregate periods (halves of quarters, the powerplay) start and end with their span.
  for (const period of profile.periods.filter((p) => !p.leaf)) {
    if (elapsedMin >= period.startMin) state.periodsStarted.push(period.periodID);
    if (elapsedMin >= period.endMin) state.periodsEnded.push(period.periodID);
  }
  // In play the current period is the running one, or during a break the one just finished.
  if (phase === "live") state.currentPeriodID = state.periodsStarted.filter((id) => periodScores[id]).at(-1);
  state.homeScore = totals.home;
  state.awayScore = totals.away;
  if (corrected) state.resultsCorrectedAtMs = corrected.atMs;

  const record = (periodID: string, entity: string, stats: Record<string, number>) => {
    state.results[periodID] ??= {};
    state.results[periodID][entity] = stats;
  };
  for (const [periodID, scores] of Object.entries(periodScores)) {
    record(periodID, "HOME", scores.home);
    record(periodID, "AWAY", scores.away);
  }
  const sum = (periodIDs: string[], side: "home" | "away") => {
    const out: Record<string, number> = {};
    for (const id of periodIDs) {
      for (const [stat, value] of Object.entries(periodScores[id]?.[side] ?? {})) out[stat] = (out[stat] ?? 0) + value;
    }
    return out;
  };
  if (event.league.sportID === "AUSSIE_RULES") {
    if (state.periodsStarted.includes("1q")) {
      record("1h", "HOME", sum(["1q", "2q"], "home"));
      record("1h", "AWAY", sum(["1q", "2q"], "away"));
    }
    if (state.periodsStarted.includes("3q")) {
      record("2h", "HOME", sum(["3q", "4q"], "home"));
      record("2h", "AWAY", sum(["3q", "4q"], "away"));
    }
  }
  const leafIDs = Object.keys(periodScores);
  record("game", "HOME", sum(leafIDs, "home"));
  record("game", "AWAY", sum(leafIDs, "away"));
  if (phase === "ended" || phase === "final") {
    for (const [side, players] of [
      ["home", event.home.players],
      ["away", event.away.players],
    ] as const) {
      // A team's scorers cannot score more than the team did: goals and tries are shared out in order.
      const team = state.results.game?.[side === "home" ? "HOME" : "AWAY"] ?? {};
      const left: Record<string, number> = { goals: team.goals ?? team.points ?? 0, tries: team.tries ?? 0 };
      for (const player of players) {
        const result = playerResult(seed, event, player);
        for (const stat of ["goals", "tries"]) {
          const value = result[stat];
          if (value === undefined) continue;
          result[stat] = Math.min(value, left[stat] ?? 0);
          left[stat] = (left[stat] ?? 0) - (result[stat] ?? 0);
        }
        record("game", playerID(event, side, player), result);
      }
    }
    settleFirstTryScorer(seed, event, state.results.game ?? {});
  }
  return state;
}

/** playerID = `<NAME>_<n>_<leagueID>`; n tells apart players of the same name in a league. */
export function playerID(event: ScheduledEvent, _side: "home" | "away", player: FixturePlayer): string {
  return playerIDIn(event.league.leagueID, player);
}

const playerIDs = new Map<string, string>();

export function playerIDIn(leagueID: string, player: FixturePlayer): string {
  const key = `${leagueID}|${player.name}`;
  let id = playerIDs.get(key);
  if (id === undefined) {
    id = `${upperToken(player.name)}_1_${leagueID}`;
    playerIDs.set(key, id);
  }
  return id;
}
