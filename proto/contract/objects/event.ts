import { z } from "zod";

/** The contract's Event, Odds and ByBookmakerOdds objects (GET /v2/events/). */

export const EVENT_TYPES = ["match", "tournament", "prop"] as const;

export const byBookmakerOdds = z
  .object({
    bookmakerID: z.string(),
    odds: z.string().meta({ description: "American price" }),
    decimal: z.number(),
    overUnder: z.string().optional(),
    spread: z.string().optional(),
    available: z.boolean(),
    lastUpdatedAt: z.iso.datetime(),
    eventName: z.string(),
    deeplink: z.string().optional(),
  })
  .meta({ id: "ByBookmakerOdds" });

export const altLine = z.object({ byBookmaker: z.record(z.string(), byBookmakerOdds) });

export const odds = z
  .object({
    oddID: z.string(),
    opposingOddID: z.string().nullable(),
    marketName: z.string(),
    statID: z.string(),
    statEntityID: z.string(),
    periodID: z.string(),
    betTypeID: z.string(),
    sideID: z.string(),
    playerID: z.string().optional(),
    bookOdds: z.string(),
    bookOddsAvailable: z.boolean(),
    bookSpread: z.string().nullable(),
    bookOverUnder: z.string().nullable(),
    fairOdds: z.string().nullable(),
    fairOddsAvailable: z.boolean(),
    fairSpread: z.string().nullable(),
    fairOverUnder: z.string().nullable(),
    started: z.boolean(),
    ended: z.boolean(),
    cancelled: z.boolean(),
    scoringSupported: z.boolean(),
    byBookmaker: z.record(z.string(), byBookmakerOdds),
    altLines: z.record(z.string(), altLine).optional().meta({ description: "present only with includeAltLines=true" }),
  })
  .meta({ id: "Odds" });

/** A team's names and known colours: the same in an event and in the catalogue. */
export const teamNames = z.object({ long: z.string(), medium: z.string(), short: z.string() });
export const teamColors = z.object({
  primary: z.string().optional(),
  secondary: z.string().optional(),
  primaryContrast: z.string().optional(),
  secondaryContrast: z.string().optional(),
});

export const eventTeam = z.object({
  teamID: z.string(),
  names: teamNames,
  colors: teamColors,
  statEntityID: z.string(),
  score: z.number().nullable(),
});

export const event = z
  .object({
    eventID: z.string(),
    sportID: z.string(),
    leagueID: z.string(),
    type: z.enum(EVENT_TYPES),
    status: z.object({
      started: z.boolean(),
      ended: z.boolean(),
      live: z.boolean(),
      cancelled: z.boolean(),
      delayed: z.boolean(),
      finalized: z.boolean(),
      completed: z.boolean(),
      startsAt: z.iso.datetime(),
      oddsPresent: z.boolean(),
      oddsAvailable: z.boolean(),
      currentPeriodID: z.string().nullable(),
      periods: z.object({ started: z.array(z.string()), ended: z.array(z.string()) }),
      displayShort: z.string(),
      displayLong: z.string(),
    }),
    info: z.object({
      displayName: z.string(),
      commenceTime: z.iso.datetime(),
      lastUpdatedAt: z.iso.datetime(),
      stale: z.boolean().meta({ description: "no source write for 45 minutes" }),
      bookmakersPresent: z.array(z.string()),
      sourceBookmakerCount: z.number().int(),
    }),
    teams: z.object({ home: eventTeam.nullable(), away: eventTeam.nullable() }),
    players: z.record(
      z.string(),
      z.object({
        playerID: z.string(),
        teamID: z.string(),
        name: z.string(),
        firstName: z.string(),
        lastName: z.string(),
      }),
    ),
    results: z
      .record(z.string(), z.record(z.string(), z.record(z.string(), z.number())))
      .meta({ description: "{periodID}.{statEntityID}.{statID} -> number" }),
    odds: z.record(z.string(), odds),
    links: z.object({
      bookmakers: z.record(z.string(), z.string()),
      betslip: z.record(z.string(), z.object({ kind: z.string(), urlTemplate: z.string().nullable() })),
    }),
  })
  .meta({ id: "Event" });

export type ByBookmakerOdds = z.infer<typeof byBookmakerOdds>;
export type AltLine = z.infer<typeof altLine>;
export type Odds = z.infer<typeof odds>;
export type EventTeam = z.infer<typeof eventTeam>;
export type Event = z.infer<typeof event>;
