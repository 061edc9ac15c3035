// What tennis and mixed martial arts share in the simulated feed: two competitors, a rating each,
// and a headline market on who wins.
import type { FixtureTeam } from "./fixtures";
import type { MarketModel, SideProbability } from "./markets";
import { drift, unit } from "./random";
import type { ScheduledEvent } from "./schedule";

const HOUR_MS = 3_600_000;

/** A competitor's rating in [-1, 1], fixed for the seed. */
function rating(seed: string, event: ScheduledEvent, competitor: FixtureTeam): number {
  return unit(seed, "rating", event.league.leagueID, competitor.long) * 2 - 1;
}

/**
 * Probability that competitor 1 (the feed's HOME) wins one unit of the contest (a set, a fight)
 * as the market sees it at `atMs`: ratings plus news-driven drift until the start.
 */
export function unitWinProbability(seed: string, event: ScheduledEvent, atMs: number, scale: number): number {
  const gap = rating(seed, event, event.home) - rating(seed, event, event.away);
  const news = 0.15 * drift(Math.min(atMs, event.actualStartMs), 10 * HOUR_MS, seed, "duel-news", event.eventID);
  return Math.min(0.93, Math.max(0.07, 1 / (1 + Math.exp(-(gap + news) * scale))));
}

/** The probability as it stood at the start: what the result is drawn from. */
export function startingProbability(seed: string, event: ScheduledEvent, scale: number): number {
  return unitWinProbability(seed, event, event.actualStartMs, scale);
}

/** Competitor 1 or 2 to win (a draw, where one can happen, voids the bet). */
export function winnerModel(pHome: number, opensHoursBefore: number): MarketModel {
  return {
    key: "POINTS|ALL|GAME|ML",
    stat: "POINTS",
    period: "GAME",
    betType: "ML",
    group: "main",
    opensHoursBefore,
    sides: (): SideProbability[] => [
      { entity: "HOME", side: "HOME", probability: pHome },
      { entity: "AWAY", side: "AWAY", probability: 1 - pHome },
    ],
  };
}

export const halfLine = (x: number): number => Math.floor(x) + 0.5;
