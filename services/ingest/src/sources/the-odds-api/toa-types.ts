// The Odds API v4 answers we read: /v4/sports/{sport}/odds (a list of events) and
// /v4/sports/{sport}/events/{id}/odds (one event), with includeLinks, includeSids and includeBetLimits.
import { z } from "zod";

export const toaOutcomeSchema = z.object({
  name: z.string(),
  /** American when asked for oddsFormat=american. */
  price: z.number(),
  point: z.number().optional(),
  /** Player markets: the player's name. */
  description: z.string().optional(),
  link: z.string().nullish(),
  sid: z.string().nullish(),
  /** Exchanges, with includeBetLimits: the stake available at this price. */
  bet_limit: z.number().nullish(),
});
export type ToaOutcome = z.output<typeof toaOutcomeSchema>;

export const toaMarketSchema = z.object({
  key: z.string(),
  last_update: z.string().optional(),
  link: z.string().nullish(),
  outcomes: z.array(z.unknown()),
});

export const toaBookmakerSchema = z.object({
  key: z.string(),
  title: z.string().optional(),
  last_update: z.string().optional(),
  link: z.string().nullish(),
  sid: z.string().nullish(),
  markets: z.array(z.unknown()),
});

export const toaEventSchema = z.object({
  id: z.string().min(1),
  sport_key: z.string(),
  commence_time: z.string(),
  home_team: z.string().min(1),
  away_team: z.string().min(1),
  bookmakers: z.array(z.unknown()).default([]),
});
export type ToaEvent = z.output<typeof toaEventSchema>;
