// Sports between two competitors rather than a home and an away team (tennis, mixed martial
// arts). Each one models its own match, results and markets; match.ts and markets.ts hand an
// event of such a sport to it, so the team-sport models stay as they are.
import type { FixtureLeague, FixtureSport } from "./fixtures";
import type { MarketModel } from "./markets";
import type { MatchState } from "./match";
import type { ScheduledEvent } from "./schedule";
import { TENNIS } from "./tennis";
import { MMA } from "./mma";

export interface CompetitorSport {
  sport: FixtureSport;
  league: FixtureLeague;
  /** Path segment of the sport in bookmakers' event URLs. */
  urlPath: string;
  /** Spacing of alternate lines. */
  altLineStep: number;
  /** Minutes from the start to the end of this event (a straight-sets win is shorter than three sets). */
  durationMin(seed: string, event: ScheduledEvent): number;
  /** The event's periods, scores and results, given the phase and the minutes elapsed in `base`. */
  stateAt(seed: string, event: ScheduledEvent, base: MatchState): MatchState;
  /** Every market priced at `atMs` with its true probabilities (the headline markets only in play or with `mainOnly`). */
  models(seed: string, event: ScheduledEvent, atMs: number, state: MatchState, mainOnly: boolean): MarketModel[];
}

export const COMPETITOR_SPORTS: readonly CompetitorSport[] = [TENNIS, MMA];

export function competitorSport(sportID: string): CompetitorSport | undefined {
  return COMPETITOR_SPORTS.find((sport) => sport.sport.sportID === sportID);
}
