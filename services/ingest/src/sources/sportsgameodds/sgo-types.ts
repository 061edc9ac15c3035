// The SportsGameOdds v2 `/v2/events/` answer, as far as we read it (their documented Event shape).
// Parsed per event and per bookmaker entry, so one malformed entry is skipped, never the page.
import { z } from "zod";

const names = z.object({ long: z.string(), medium: z.string().optional(), short: z.string().optional() });

const team = z.object({
  teamID: z.string().min(1),
  names,
  colors: z.object({ primary: z.string().optional(), secondary: z.string().optional() }).optional(),
  score: z.number().optional(),
});

export const sgoBookmakerOddsSchema = z.object({
  odds: z.string(),
  spread: z.string().optional(),
  overUnder: z.string().optional(),
  available: z.boolean().default(true),
  isMainLine: z.boolean().optional(),
  lastUpdatedAt: z.string().optional(),
  deeplink: z.string().optional(),
  altLines: z
    .array(
      z.object({
        odds: z.string(),
        spread: z.string().optional(),
        overUnder: z.string().optional(),
        available: z.boolean().default(true),
        lastUpdatedAt: z.string().optional(),
      }),
    )
    .optional(),
});
export type SgoBookmakerOdds = z.output<typeof sgoBookmakerOddsSchema>;

export const sgoOddSchema = z.object({
  oddID: z.string(),
  statID: z.string(),
  statEntityID: z.string(),
  periodID: z.string(),
  betTypeID: z.string(),
  sideID: z.string(),
  playerID: z.string().optional(),
  byBookmaker: z.record(z.string(), z.unknown()).default({}),
});

export const sgoEventSchema = z.object({
  eventID: z.string().min(1),
  sportID: z.string(),
  leagueID: z.string(),
  type: z.string().default("match"),
  teams: z.object({ home: team, away: team }),
  status: z.object({
    startsAt: z.string(),
    started: z.boolean().default(false),
    ended: z.boolean().default(false),
    live: z.boolean().default(false),
    cancelled: z.boolean().default(false),
    delayed: z.boolean().default(false),
    completed: z.boolean().default(false),
    finalized: z.boolean().default(false),
    currentPeriodID: z.string().optional(),
    clock: z.string().optional(),
    periods: z
      .object({ started: z.array(z.string()).default([]), ended: z.array(z.string()).default([]) })
      .default({ started: [], ended: [] }),
  }),
  players: z
    .record(
      z.string(),
      z.object({
        playerID: z.string(),
        teamID: z.string().default(""),
        name: z.string().optional(),
        firstName: z.string().optional(),
        lastName: z.string().optional(),
        position: z.string().optional(),
        jerseyNumber: z.number().optional(),
      }),
    )
    .default({}),
  results: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))).default({}),
  odds: z.record(z.string(), z.unknown()).default({}),
  links: z.object({ bookmakers: z.record(z.string(), z.string()).default({}) }).optional(),
});
export type SgoEvent = z.output<typeof sgoEventSchema>;

export const sgoPageSchema = z.object({
  success: z.boolean().optional(),
  data: z.array(z.unknown()),
  nextCursor: z.string().nullish(),
});
