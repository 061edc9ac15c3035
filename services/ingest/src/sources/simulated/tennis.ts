// Tennis in the simulated feed: a tour of best-of-three-sets matches between two players
// (competitor_1 is the feed's HOME). Results carry each set's games (periods 1s..3s, stat points),
// and for the match the sets won (points) and the games won (games).
import type { CompetitorSport } from "./competitors";
import { halfLine, startingProbability, unitWinProbability, winnerModel } from "./duel";
import type { FixtureTeam } from "./fixtures";
import type { MarketModel, SideProbability } from "./markets";
import type { MatchState } from "./match";
import { normalCdf, unit } from "./random";
import type { ScheduledEvent } from "./schedule";

const SETS_TO_WIN = 2;
const SET_MIN = 45;
const SET_BREAK_MIN = 5;
/** Logistic scale from the rating gap to a set won. */
const SET_SCALE = 1.6;
/** The loser's games in a set: 0-4 (to 6), 5 (7-5), 6 (7-6); the mean of the winner's and the loser's games. */
const WINNER_GAMES_MEAN = 6.25;
const LOSER_GAMES_MEAN = 2.87;
const MARGIN_SD = 4.5;
const TOTAL_SD = 4;

const player = (long: string, medium: string, short: string, colors: [string, string]): FixtureTeam => ({
  long,
  medium,
  short,
  colors,
  players: [],
});

interface SetScore {
  home: number;
  away: number;
}

/** The whole match, drawn from the set probability at the start: each set's games until a player has two sets. */
function setScores(seed: string, event: ScheduledEvent): SetScore[] {
  const p = startingProbability(seed, event, SET_SCALE);
  const sets: SetScore[] = [];
  const won = { home: 0, away: 0 };
  while (won.home < SETS_TO_WIN && won.away < SETS_TO_WIN) {
    const n = sets.length + 1;
    const winner = unit(seed, "set", event.eventID, n) < p ? "home" : "away";
    const roll = unit(seed, "set-games", event.eventID, n);
    const [winnerGames, loserGames] = roll < 0.75 ? [6, Math.floor((roll / 0.75) * 5)] : roll < 0.88 ? [7, 5] : [7, 6];
    sets.push(winner === "home" ? { home: winnerGames, away: loserGames } : { home: loserGames, away: winnerGames });
    won[winner]++;
  }
  return sets;
}

/** Probability competitor 1 wins the match from `home`-`away` sets, each set won with `p`. */
function matchProbability(p: number, home: number, away: number): number {
  if (home >= SETS_TO_WIN) return 1;
  if (away >= SETS_TO_WIN) return 0;
  return p * matchProbability(p, home + 1, away) + (1 - p) * matchProbability(p, home, away + 1);
}

/** Set-betting outcomes (sets of competitor 1 _ sets of competitor 2) with their probabilities. */
function setBetting(p: number): SideProbability[] {
  const q = 1 - p;
  return [
    { entity: "ALL", side: "2_0", probability: p * p },
    { entity: "ALL", side: "2_1", probability: 2 * p * p * q },
    { entity: "ALL", side: "1_2", probability: 2 * p * q * q },
    { entity: "ALL", side: "0_2", probability: q * q },
  ];
}

const models: CompetitorSport["models"] = (seed, event, atMs, state) => {
  const p = unitWinProbability(seed, event, atMs, SET_SCALE);
  const live = state.phase === "live";
  const setsWon = (side: "HOME" | "AWAY") => state.results.game?.[side]?.points ?? 0;
  const markets: MarketModel[] = [winnerModel(matchProbability(p, setsWon("HOME"), setsWon("AWAY")), 120)];
  if (live) return markets;

  const outcomes = setBetting(p);
  const [twoNil = 0, twoOne = 0, oneTwo = 0, nilTwo = 0] = outcomes.map((o) => o.probability);
  const setMargin = WINNER_GAMES_MEAN - LOSER_GAMES_MEAN;
  const marginMean = setMargin * (2 * twoNil + twoOne - oneTwo - 2 * nilTwo);
  const totalMean = (WINNER_GAMES_MEAN + LOSER_GAMES_MEAN) * (2 + twoOne + oneTwo);
  const homeLine = halfLine(-marginMean);
  const totalLine = halfLine(totalMean);
  markets.push(
    {
      key: "GAMES|ALL|GAME|SP",
      stat: "GAMES",
      period: "GAME",
      betType: "SP",
      group: "main",
      mainLine: homeLine,
      lineStep: 1,
      opensHoursBefore: 120,
      sides: (line = homeLine) => {
        const home = 1 - normalCdf((-line - marginMean) / MARGIN_SD);
        return [
          { entity: "HOME", side: "HOME", probability: home, line },
          { entity: "AWAY", side: "AWAY", probability: 1 - home, line: -line },
        ];
      },
    },
    {
      key: "GAMES|ALL|GAME|OU",
      stat: "GAMES",
      period: "GAME",
      betType: "OU",
      group: "main",
      mainLine: totalLine,
      lineStep: 1,
      opensHoursBefore: 120,
      sides: (line = totalLine) => {
        const over = 1 - normalCdf((line - totalMean) / TOTAL_SD);
        return [
          { entity: "ALL", side: "OVER", probability: over, line },
          { entity: "ALL", side: "UNDER", probability: 1 - over, line },
        ];
      },
    },
  );
  // Set betting is a headline market of tennis: priced wherever the main markets are (it has no lines).
  markets.push({
    key: "POINTS|ALL|GAME|CS",
    stat: "POINTS",
    period: "GAME",
    betType: "CS",
    group: "main",
    opensHoursBefore: 72,
    sides: () => outcomes,
  });
  return markets;
};

/** Sets played so far, each with the games won by then, as results and periods (1s, 2s, 3s). */
function stateAt(seed: string, event: ScheduledEvent, base: MatchState): MatchState {
  const state: MatchState = { ...base, periodsStarted: [], periodsEnded: [], results: {} };
  const sets = { home: 0, away: 0 };
  const games = { home: 0, away: 0 };
  setScores(seed, event).forEach((score, i) => {
    const startMin = i * (SET_MIN + SET_BREAK_MIN);
    if (base.elapsedMin < startMin) return;
    const periodID = `${i + 1}s`;
    const progress = Math.min(1, (base.elapsedMin - startMin) / SET_MIN);
    const home = Math.floor(score.home * progress);
    const away = Math.floor(score.away * progress);
    state.results[periodID] = { HOME: { points: home }, AWAY: { points: away } };
    state.periodsStarted.push(periodID);
    games.home += home;
    games.away += away;
    if (progress >= 1) {
      state.periodsEnded.push(periodID);
      sets[score.home > score.away ? "home" : "away"]++;
    }
  });
  state.results.game = {
    HOME: { points: sets.home, games: games.home },
    AWAY: { points: sets.away, games: games.away },
  };
  state.homeScore = sets.home;
  state.awayScore = sets.away;
  if (base.phase === "live") state.currentPeriodID = state.periodsStarted.at(-1);
  return state;
}

export const TENNIS: CompetitorSport = {
  sport: { sportID: "TENNIS", name: "Tennis", shortName: "Tennis" },
  league: {
    leagueID: "ATP",
    sportID: "TENNIS",
    name: "ATP Tour",
    shortName: "ATP",
    prefix: "atp",
    slots: [
      [1, "01:00"],
      [1, "09:00"],
      [2, "03:00"],
      [3, "09:00"],
      [4, "01:00"],
      [5, "08:00"],
    ],
    teams: [
      player("Jannik Sinner", "Sinner", "SIN", ["#E2001A", "#FFFFFF"]),
      player("Carlos Alcaraz", "Alcaraz", "ALC", ["#AA151B", "#F1BF00"]),
      player("Alexander Zverev", "Zverev", "ZVE", ["#000000", "#DD0000"]),
      player("Novak Djokovic", "Djokovic", "DJO", ["#C6363C", "#0C4076"]),
      player("Taylor Fritz", "Fritz", "FRI", ["#3C3B6E", "#B22234"]),
      player("Jack Draper", "Draper", "DRA", ["#012169", "#C8102E"]),
      player("Alex de Minaur", "De Minaur", "DEM", ["#00843D", "#FFCD00"]),
      player("Casper Ruud", "Ruud", "RUU", ["#BA0C2F", "#00205B"]),
      player("Lorenzo Musetti", "Musetti", "MUS", ["#009246", "#CE2B37"]),
      player("Holger Rune", "Rune", "RUN", ["#C8102E", "#FFFFFF"]),
      player("Daniil Medvedev", "Medvedev", "MED", ["#0039A6", "#D52B1E"]),
      player("Tommy Paul", "Paul", "PAU", ["#0A3161", "#B31942"]),
    ],
  },
  urlPath: "tennis",
  altLineStep: 2,
  durationMin: (seed, event) => setScores(seed, event).length * (SET_MIN + SET_BREAK_MIN) - SET_BREAK_MIN,
  stateAt,
  models,
};
