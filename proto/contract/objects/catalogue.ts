import { z } from "zod";
import { teamColors, teamNames } from "./event";

/** The contract's catalogue objects: Sport, League, Team, Player, Stat, Market. */

export const PROP_TYPES = ["game_prop", "team_prop", "player_prop", "other_prop"] as const;
export type PropType = (typeof PROP_TYPES)[number];
export const STAT_LEVELS = ["all", "player", "team"] as const;
export type StatLevel = (typeof STAT_LEVELS)[number];

export const sport = z
  .object({
    sportID: z.string(),
    name: z.string(),
    shortName: z.string(),
    enabled: z.boolean().meta({ description: "whether the caller's plan can read it" }),
    activeEvents: z.number().int().meta({ description: "events currently carried" }),
  })
  .meta({ id: "Sport" });

export const league = sport.extend({ leagueID: z.string() }).meta({ id: "League" });

export const team = z
  .object({
    teamID: z.string(),
    sportID: z.string(),
    leagueID: z.string(),
    names: teamNames,
    colors: teamColors.meta({ description: "the colours that are known" }),
    statEntityID: z.string().meta({ description: "home or away on the event the team was read from" }),
  })
  .meta({ id: "Team" });

export const player = z
  .object({
    playerID: z.string(),
    teamID: z.string(),
    sportID: z.string(),
    leagueID: z.string(),
    name: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    position: z.string().optional().meta({ description: "where the source carries it" }),
    jerseyNumber: z.number().int().optional().meta({ description: "where the source carries it" }),
  })
  .meta({ id: "Player" });

export const stat = z
  .object({
    statID: z.string(),
    supportedLevels: z.object({ all: z.boolean(), team: z.boolean(), player: z.boolean() }),
    displays: z.object({ short: z.string(), long: z.string() }),
    isScoreStat: z.boolean().meta({ description: "true for points, which decides the event" }),
    supportedSports: z.record(z.string(), z.literal(true)),
  })
  .meta({ id: "Stat" });

export const market = z
  .object({
    oddID: z.string(),
    statID: z.string(),
    statEntityID: z.string(),
    periodID: z.string(),
    betTypeID: z.string(),
    sideID: z.string(),
    playerID: z.string().optional().meta({ description: "player props" }),
    teamID: z.string().optional().meta({ description: "tournament team markets" }),
    marketGroupID: z.string(),
    marketGroupName: z.string(),
    isMainMarket: z.boolean(),
    isMainDerivative: z.boolean(),
    isSubPeriod: z.boolean(),
    isProp: z.boolean(),
    propType: z.enum(PROP_TYPES).optional().meta({ description: "props only" }),
    isSupported: z.boolean(),
    activeEvents: z.number().int(),
    support: z.record(z.string(), z.record(z.string(), z.literal(true))).meta({
      description: "leagueID -> { bookmakerID -> true }",
    }),
    bookmakers: z.array(z.string()).meta({ description: "extension: flat list of bookmakers pricing it" }),
  })
  .meta({ id: "Market" });

export type Sport = z.infer<typeof sport>;
export type League = z.infer<typeof league>;
export type Team = z.infer<typeof team>;
export type Player = z.infer<typeof player>;
export type Stat = z.infer<typeof stat>;
export type Market = z.infer<typeof market>;
