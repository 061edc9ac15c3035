import { z } from "zod";
import { v1IdPattern } from "./ids";

/**
 * The v1 contract's objects, defined once: the services render them (typed by these), the edge
 * documents them in /v1/openapi.json, and the end-to-end tests validate what is served against them.
 * Field names are lower case with underscores, times UTC ISO 8601, prices decimal.
 */

const eventId = z.string().regex(v1IdPattern("event")).meta({ description: "ev_ + 12 characters of [a-z0-9]" });
const playerId = z.string().regex(v1IdPattern("player")).meta({ description: "pl_ + 12 characters of [a-z0-9]" });
const marketId = z.string().regex(v1IdPattern("market")).meta({ description: "mk_ + 16 characters of [a-z0-9]" });
const outcomeId = z.string().regex(v1IdPattern("outcome")).meta({ description: "oc_ + 16 characters of [a-z0-9]" });
const time = z.iso.datetime().meta({ description: "UTC, ISO 8601" });

export const V1_EVENT_STATUSES = ["scheduled", "live", "ended", "finalized", "cancelled", "delayed"] as const;
export const V1_ROLES = ["home", "away", "competitor_1", "competitor_2"] as const;
export const V1_ODDS_GROUPINGS = ["market", "bookmaker"] as const;

export const v1Sport = z
  .object({
    sport_id: z.string(),
    name: z.string(),
    short_name: z.string(),
    enabled: z.boolean().meta({ description: "whether the caller's plan can read it" }),
    active_events: z.number().int(),
  })
  .meta({ id: "Sport" });

export const v1League = z
  .object({
    league_id: z.string(),
    sport_id: z.string(),
    name: z.string(),
    short_name: z.string(),
    enabled: z.boolean().meta({ description: "whether the caller's plan can read it" }),
    active_events: z.number().int(),
    history_start: z.iso.date().meta({
      description:
        "first UTC day of the league's odds history (/v1/odds/history, /v1/history/files): 2026-10-08, or " +
        "2025-12-22 for leagues with converted earlier recordings",
    }),
  })
  .meta({ id: "League" });

export const v1Bookmaker = z
  .object({
    bookmaker_id: z.string(),
    leagues: z.array(z.string()).meta({ description: "leagues (visible to the plan) it prices markets in" }),
    markets: z.number().int().meta({ description: "markets it prices in those leagues" }),
  })
  .meta({ id: "Bookmaker" });

export const v1Outcome = z.object({ outcome_id: outcomeId, side: z.string() });

export const v1Market = z
  .object({
    market_id: marketId,
    name: z.string(),
    stat_id: z.string(),
    period_id: z.string(),
    bet_type: z.string().meta({ description: "ml, sp, ou, ml3way, yn, eo, pick, ..." }),
    player_id: playerId.nullable().meta({ description: "set for player props" }),
    team_id: z.string().nullable(),
    is_main: z.boolean(),
    is_prop: z.boolean(),
    prop_type: z.string().nullable(),
    outcomes: z.array(v1Outcome),
    leagues: z.array(z.string()),
    bookmakers: z.array(z.string()),
    active_events: z.number().int(),
  })
  .meta({ id: "Market" });

export const v1Team = z
  .object({
    team_id: z.string(),
    sport_id: z.string(),
    league_id: z.string(),
    name: z.string(),
    medium_name: z.string(),
    short_name: z.string(),
    colors: z.object({ primary: z.string().nullable(), secondary: z.string().nullable() }),
  })
  .meta({ id: "Team" });

export const v1Player = z
  .object({
    player_id: playerId,
    team_id: z.string(),
    sport_id: z.string(),
    league_id: z.string(),
    name: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    position: z.string().nullable(),
    jersey_number: z.number().int().nullable(),
  })
  .meta({ id: "Player" });

export const v1Participant = z.object({
  role: z.enum(V1_ROLES).meta({ description: "home/away in team sports; competitor_1/competitor_2 in tennis and MMA" }),
  team_id: z.string(),
  name: z.string(),
  short_name: z.string(),
  score: z.number().nullable(),
});

export const v1Event = z
  .object({
    event_id: eventId,
    sport_id: z.string(),
    league_id: z.string(),
    type: z.string(),
    name: z.string(),
    starts_at: time,
    status: z.enum(V1_EVENT_STATUSES),
    current_period_id: z.string().nullable(),
    participants: z.array(v1Participant),
    players: z.array(z.object({ player_id: playerId, team_id: z.string(), name: z.string() })),
    odds_available: z.boolean(),
    bookmakers: z.array(z.string()),
    external_ids: z
      .record(z.string(), z.string())
      .meta({ description: "bookmaker -> the bookmaker's own event id (usable in /v1/events/lookup)" }),
    updated_at: time,
    stale: z.boolean().meta({ description: "the source has written nothing for 45 minutes" }),
  })
  .meta({ id: "Event" });

/** One bookmaker's price: null decimal odds when the price is withdrawn, suspended or stale (never zero). */
export const v1Price = z
  .object({
    bookmaker: z.string(),
    decimal_odds: z.number().gt(1).nullable(),
    implied_probability: z.number().gt(0).lt(1).nullable().meta({ description: "1 / decimal_odds" }),
    line: z.number().nullable(),
    observed_at: time,
  })
  .meta({ id: "Price" });

export const v1OutcomeOdds = z.object({
  outcome_id: outcomeId,
  side: z.string(),
  line: z.number().nullable().meta({ description: "consensus line (spreads, totals, bands)" }),
  consensus: z
    .object({ decimal_odds: z.number().gt(1), implied_probability: z.number().gt(0).lt(1) })
    .nullable()
    .meta({ description: "median implied probability of the bookmakers with the outcome open; null when none is" }),
  prices: z.array(v1Price),
});

export const v1MarketOdds = z.object({
  market_id: marketId,
  name: z.string(),
  stat_id: z.string(),
  period_id: z.string(),
  bet_type: z.string(),
  player_id: playerId.nullable(),
  outcomes: z.array(v1OutcomeOdds),
});

export const v1BookmakerOdds = z.object({
  bookmaker: z.string(),
  markets: z.array(
    z.object({
      market_id: marketId,
      name: z.string(),
      outcomes: z.array(
        z.object({
          outcome_id: outcomeId,
          side: z.string(),
          decimal_odds: z.number().gt(1).nullable(),
          implied_probability: z.number().gt(0).lt(1).nullable(),
          line: z.number().nullable(),
          observed_at: time,
        }),
      ),
    }),
  ),
});

/** One event's odds: grouped by market (default) or, with group_by=bookmaker, one block per bookmaker. */
export const v1EventOdds = z
  .object({
    event_id: eventId,
    league_id: z.string(),
    starts_at: time,
    group_by: z.enum(V1_ODDS_GROUPINGS),
    markets: z.array(v1MarketOdds).optional().meta({ description: "group_by=market" }),
    bookmakers: z.array(v1BookmakerOdds).optional().meta({ description: "group_by=bookmaker" }),
  })
  .meta({ id: "EventOdds" });

export const V1_VERDICTS = ["won", "lost", "void", "dead_heat"] as const;

export const v1OutcomeResult = z.object({
  outcome_id: outcomeId,
  side: z.string(),
  line: z.number().nullable().meta({ description: "the line graded (the consensus line of spreads and totals)" }),
  verdict: z
    .enum(V1_VERDICTS)
    .nullable()
    .meta({ description: "null while the market is pending; void returns the stake" }),
  dead_heat_factor: z
    .number()
    .gt(0)
    .lt(1)
    .nullable()
    .meta({ description: "dead_heat only: the payout is scaled by it (1 / winners tied)" }),
  void_fraction: z
    .number()
    .min(0)
    .max(1)
    .meta({ description: "part of the stake returned as void (0.5 on a quarter line that half-pushed)" }),
});

export const v1MarketResult = z.object({
  market_id: marketId,
  name: z.string(),
  period_id: z.string(),
  bet_type: z.string(),
  player_id: playerId.nullable(),
  settled: z.boolean(),
  settled_at: time
    .nullable()
    .meta({ description: "when the market was settled (or re-settled by a correction); null while pending" }),
  outcomes: z.array(v1OutcomeResult),
});

const v1Scores = z.array(z.object({ role: z.enum(V1_ROLES), team_id: z.string(), score: z.number().nullable() }));

/** A correction of an event's results after markets were settled on them, and what it changed. */
export const v1ResultCorrection = z
  .object({
    corrected_at: time.meta({ description: "when the source corrected the results" }),
    scores_before: v1Scores,
    scores: v1Scores,
    outcomes: z
      .array(
        z.object({
          market_id: marketId,
          outcome_id: outcomeId,
          previous_verdict: z.enum(V1_VERDICTS),
          verdict: z.enum(V1_VERDICTS),
        }),
      )
      .meta({ description: "settled outcomes whose verdict (or dead-heat or void share) the correction changed" }),
  })
  .meta({ id: "ResultCorrection" });

/** One event's result: scores, and a verdict for every outcome of every market it was priced on. */
export const v1Result = z
  .object({
    event_id: eventId,
    league_id: z.string(),
    starts_at: time,
    status: z.enum(V1_EVENT_STATUSES),
    final: z.boolean().meta({ description: "the result is finalized" }),
    scores: v1Scores,
    periods_ended: z.array(z.string()),
    pending_markets: z.number().int().meta({ description: "markets not settled yet (their period has not ended)" }),
    corrected_at: time
      .nullable()
      .meta({ description: "the latest correction of results already settled on; null when never corrected" }),
    corrections: z
      .array(v1ResultCorrection)
      .meta({ description: "oldest first; a settled verdict changes only through one of these" }),
    markets: z.array(v1MarketResult),
  })
  .meta({ id: "Result" });

export const V1_TICK_KINDS = ["open", "move", "limit", "close"] as const;

/** One recorded change of one bookmaker's price on one outcome (/v1/odds/history). */
export const v1OddsTick = z
  .object({
    event_id: eventId,
    market_id: marketId,
    outcome_id: outcomeId,
    bookmaker: z.string(),
    changed_at: time,
    kind: z.enum(V1_TICK_KINDS).meta({
      description:
        "open (first price seen), move (price, line or main-line status changed), limit (only the bet limit " +
        "changed), close (price withdrawn)",
    }),
    decimal_odds: z.number().gt(1).nullable().meta({ description: "the new price; null on close" }),
    implied_probability: z.number().gt(0).lt(1).nullable().meta({ description: "1 / decimal_odds" }),
    previous_decimal_odds: z.number().gt(1).nullable().meta({ description: "the replaced price; null on open" }),
    line: z.number().nullable().meta({ description: "spread or total; null for moneylines and yes/no markets" }),
    is_main_line: z.boolean().nullable(),
    lay_odds: z.number().nullable().meta({ description: "exchange lay price, for exchange bookmakers" }),
    max_stake: z.number().nullable().meta({ description: "bet limit after the change" }),
    previous_max_stake: z.number().nullable().meta({ description: "bet limit before the change" }),
  })
  .meta({ id: "OddsTick" });

/** One league-day of ticks downloadable as a Parquet file (/v1/history/files). */
export const v1HistoryFile = z
  .object({
    league_id: z.string(),
    day: z.iso.date().meta({ description: "UTC day of the ticks' changed_at" }),
    url: z.string().meta({ description: "where the Parquet file is: /v1/history/files/{league}/{day}" }),
  })
  .meta({ id: "HistoryFile" });

/** RFC 9457 problem details: every v1 failure. */
export const v1Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
  })
  .meta({ id: "Problem" });

export const v1Meta = z
  .object({
    count: z.number().int().meta({ description: "records in data" }),
    cost: z.object({
      objects: z.number().int().meta({ description: "usage charged: 1 per record plus 1 per bookmaker price in it" }),
    }),
  })
  .meta({ id: "Meta" });

export const v1Links = z
  .object({
    self: z.string(),
    next: z.string().nullable().meta({ description: "the next page, bound to this query; null on the last page" }),
  })
  .meta({ id: "Links" });

export type V1Sport = z.infer<typeof v1Sport>;
export type V1League = z.infer<typeof v1League>;
export type V1Bookmaker = z.infer<typeof v1Bookmaker>;
export type V1Market = z.infer<typeof v1Market>;
export type V1Team = z.infer<typeof v1Team>;
export type V1Player = z.infer<typeof v1Player>;
export type V1Participant = z.infer<typeof v1Participant>;
export type V1Event = z.infer<typeof v1Event>;
export type V1Price = z.infer<typeof v1Price>;
export type V1OutcomeOdds = z.infer<typeof v1OutcomeOdds>;
export type V1MarketOdds = z.infer<typeof v1MarketOdds>;
export type V1BookmakerOdds = z.infer<typeof v1BookmakerOdds>;
export type V1EventOdds = z.infer<typeof v1EventOdds>;
export type V1Problem = z.infer<typeof v1Problem>;
export type V1OddsTick = z.infer<typeof v1OddsTick>;
export type V1HistoryFile = z.infer<typeof v1HistoryFile>;
export type V1Result = z.infer<typeof v1Result>;
export type V1MarketResult = z.infer<typeof v1MarketResult>;
export type V1Verdict = (typeof V1_VERDICTS)[number];
export type V1EventStatus = (typeof V1_EVENT_STATUSES)[number];
export type V1Role = (typeof V1_ROLES)[number];
export type V1OddsGrouping = (typeof V1_ODDS_GROUPINGS)[number];
