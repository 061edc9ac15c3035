import { oddsFormat, staleness, v1 } from "@odds/proto";
import type { Settlement } from "./grading/grader";
import { lineOf, marketsOf, settle, type MarketSides, type Scores, type SettlementBook } from "./grading/settlement";
import { isoTime, type ContractBookmakerOdds, type ContractEvent, type ContractOdds } from "./render";

/**
 * The v1 preview's Event and EventOdds, rendered from the contract Event the read model already
 * holds (shaped for the plan and request). The v1 rules live here, not at the edge: participant
 * roles, the event status, prices as decimal with implied probability, and null (never zero)
 * for a price that is withdrawn, suspended or stale.
 */

/** Sports whose participants are competitors rather than a home and an away side. */
const COMPETITOR_SPORTS: ReadonlySet<string> = new Set(["TENNIS", "MMA"]);

/** A v1 object with its usage in objects and the time its rendering stops being true. */
export interface V1Rendered<T> {
  object: T;
  /** 1 for the record plus 1 per bookmaker price it carries (a null price is not charged). */
  objects: number;
  /** A price turns stale (null) or the event turns stale at this time; Infinity when nothing will. */
  validUntilMs: number;
}

export type V1EventStatus = v1.V1EventStatus;

export function v1StatusOf(status: {
  cancelled: boolean;
  finalized: boolean;
  ended: boolean;
  live: boolean;
  started: boolean;
  delayed?: boolean;
}): V1EventStatus {
  if (status.cancelled) return "cancelled";
  if (status.finalized) return "finalized";
  if (status.ended) return "ended";
  if (status.live || status.started) return "live";
  if (status.delayed) return "delayed";
  return "scheduled";
}

/**
 * The bookmaker's own event id: the last path segment of its event URL in our links (of the
 * fragment route for single-page sites such as https://www.bet365.com.au/#/AC/B1/.../123).
 */
export function externalEventID(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const path = parsed.hash.startsWith("#/") ? parsed.hash.slice(1) : parsed.pathname;
  const segment = path
    .split("/")
    .filter((part) => part.length > 0)
    .at(-1);
  if (!segment) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  // Written bookmakerID:id in comma-separated lookups, so neither character may be part of it.
  return /[\s:,]/.test(id) ? undefined : id;
}

export function externalIDsOf(event: ContractEvent): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const [bookmakerID, url] of Object.entries(event.links.bookmakers)) {
    const id = externalEventID(url);
    if (id) ids[bookmakerID] = id;
  }
  return ids;
}

function staleAt(isoTime: string): number {
  return Date.parse(isoTime) + staleness.STALE_AFTER_MS;
}

/** Home and away in team sports; competitor_1 and competitor_2 in tennis and MMA. */
function participantsOf(event: ContractEvent): v1.V1Participant[] {
  const competitors = COMPETITOR_SPORTS.has(event.sportID);
  const participants: v1.V1Participant[] = [];
  for (const [side, role] of [
    ["home", competitors ? "competitor_1" : "home"],
    ["away", competitors ? "competitor_2" : "away"],
  ] as const) {
    const team = event.teams[side];
    if (!team) continue;
    participants.push({
      role,
      team_id: team.teamID,
      name: team.names.long,
      short_name: team.names.short,
      score: team.score,
    });
  }
  return participants;
}

export function renderV1Event(event: ContractEvent, nowMs: number): V1Rendered<v1.V1Event> {
  const participants = participantsOf(event);
  const eventStaleAt = staleAt(event.info.lastUpdatedAt);
  return {
    object: {
      event_id: v1.v1Id("event", event.eventID),
      sport_id: event.sportID,
      league_id: event.leagueID,
      type: event.type,
      name: event.info.displayName,
      starts_at: event.status.startsAt,
      status: v1StatusOf(event.status),
      current_period_id: event.status.currentPeriodID,
      participants,
      players: Object.values(event.players).map((player) => ({
        player_id: v1.v1Id("player", player.playerID),
        team_id: player.teamID,
        name: player.name,
      })),
      odds_available: event.status.oddsAvailable,
      bookmakers: event.info.bookmakersPresent,
      external_ids: externalIDsOf(event),
      updated_at: event.info.lastUpdatedAt,
      stale: nowMs >= eventStaleAt,
    },
    objects: 1,
    validUntilMs: nowMs >= eventStaleAt ? Number.POSITIVE_INFINITY : eventStaleAt,
  };
}

/** One bookmaker's price, or null decimal odds when it is withdrawn, suspended or stale. */
function priceOf(quote: ContractBookmakerOdds, nowMs: number): { price: v1.V1Price; open: boolean; until: number } {
  const until = staleAt(quote.lastUpdatedAt);
  const open = quote.available && nowMs < until && quote.decimal > 1;
  return {
    price: {
      bookmaker: quote.bookmakerID,
      ...(open ? v1.v1DecimalPrice(quote.decimal) : { decimal_odds: null, implied_probability: null }),
      line: lineOf(quote.spread ?? quote.overUnder),
      observed_at: quote.lastUpdatedAt,
    },
    open,
    until: open ? until : Number.POSITIVE_INFINITY,
  };
}

function consensusOf(side: ContractOdds, anyOpen: boolean): v1.V1OutcomeOdds["consensus"] {
  if (!anyOpen || !side.bookOddsAvailable) return null;
  try {
    const decimal = oddsFormat.americanToDecimal(side.bookOdds);
    return v1.v1DecimalPrice(decimal);
  } catch {
    return null;
  }
}

/** The event's sides grouped by market, of the given v1 market ids only (null: every market). */
function marketsIn(event: Pick<ContractEvent, "odds">, marketIDs: ReadonlySet<string> | null): MarketSides[] {
  const markets = marketsOf(event.odds);
  return marketIDs ? markets.filter(({ groupID }) => marketIDs.has(v1.v1Id("market", groupID))) : markets;
}

function marketName(sides: ContractOdds[]): string {
  // marketName names one side ("Collingwood Moneyline"); the market is named by what its sides share.
  const names = sides.map((side) => side.marketName);
  const first = names[0] ?? "";
  if (names.length === 1) return first;
  const words = first.split(" ");
  let shared = words.length;
  while (shared > 0) {
    const suffix = words.slice(words.length - shared).join(" ");
    if (names.every((name) => name.endsWith(suffix))) return suffix;
    shared--;
  }
  return first;
}

/** An event's odds grouped by market and outcome (group_by=market) or by bookmaker. */
export function renderV1Odds(
  event: ContractEvent,
  grouping: v1.V1OddsGrouping,
  marketIDs: ReadonlySet<string> | null,
  nowMs: number,
): V1Rendered<v1.V1EventOdds> {
  let objects = 1;
  let validUntilMs = Number.POSITIVE_INFINITY;
  const markets: v1.V1MarketOdds[] = marketsIn(event, marketIDs).map(({ groupID, sides }) => {
    const first = sides[0] as ContractOdds;
    return {
      market_id: v1.v1Id("market", groupID),
      name: marketName(sides),
      stat_id: first.statID,
      period_id: first.periodID,
      bet_type: first.betTypeID,
      player_id: first.playerID ? v1.v1Id("player", first.playerID) : null,
      outcomes: sides.map((side) => {
        const prices = Object.values(side.byBookmaker).map((quote) => priceOf(quote, nowMs));
        for (const { open, until } of prices) {
          if (open) objects++;
          validUntilMs = Math.min(validUntilMs, until);
        }
        return {
          outcome_id: v1.v1Id("outcome", side.oddID),
          side: side.sideID,
          line: lineOf(side.bookSpread ?? side.bookOverUnder),
          consensus: consensusOf(
            side,
            prices.some(({ open }) => open),
          ),
          prices: prices.map(({ price }) => price),
        };
      }),
    };
  });
  const base = {
    event_id: v1.v1Id("event", event.eventID),
    league_id: event.leagueID,
    starts_at: event.status.startsAt,
  };
  if (grouping === "market") return { object: { ...base, group_by: "market", markets }, objects, validUntilMs };
  return { object: { ...base, group_by: "bookmaker", bookmakers: byBookmaker(markets) }, objects, validUntilMs };
}

/** The same prices regrouped: one block per bookmaker, its markets and outcomes inside. */
function byBookmaker(markets: v1.V1MarketOdds[]): v1.V1BookmakerOdds[] {
  const blocks = new Map<string, v1.V1BookmakerOdds>();
  for (const market of markets) {
    for (const outcome of market.outcomes) {
      for (const price of outcome.prices) {
        const block = blocks.get(price.bookmaker) ?? { bookmaker: price.bookmaker, markets: [] };
        blocks.set(price.bookmaker, block);
        let entry = block.markets[block.markets.length - 1];
        if (entry?.market_id !== market.market_id) {
          entry = { market_id: market.market_id, name: market.name, outcomes: [] };
          block.markets.push(entry);
        }
        entry.outcomes.push({
          outcome_id: outcome.outcome_id,
          side: outcome.side,
          decimal_odds: price.decimal_odds,
          implied_probability: price.implied_probability,
          line: price.line,
          observed_at: price.observed_at,
        });
      }
    }
  }
  return [...blocks.keys()].sort().map((bookmaker) => blocks.get(bookmaker) as v1.V1BookmakerOdds);
}

function outcomeResult(
  side: ContractOdds,
  settlement: Settlement | undefined,
): v1.V1Result["markets"][number]["outcomes"][number] {
  return {
    outcome_id: v1.v1Id("outcome", side.oddID),
    side: side.sideID,
    line: lineOf(side.bookSpread ?? side.bookOverUnder),
    verdict: settlement?.verdict ?? null,
    dead_heat_factor: settlement?.deadHeatFactor ?? null,
    void_fraction: settlement?.voidFraction ?? 0,
  };
}

/** Scores with the participants' roles. */
function scoresWithRoles(event: ContractEvent, scores?: Scores): v1.V1Result["scores"] {
  return participantsOf(event).map(({ role, team_id, score }, i) => ({
    role,
    team_id,
    score: scores ? (i === 0 ? scores.home : scores.away) : score,
  }));
}

/**
 * The event's result: scores and the verdict of every outcome of every market in its market book
 * (`mergeMarketBook`; the current odds when none is given) as settled (`settle`: once, changed only
 * by a correction the source marked), pending markets counted, and the corrections applied.
 */
export function renderV1Result(
  event: ContractEvent,
  marketBook: Readonly<Record<string, ContractOdds>> = event.odds,
  settlement: SettlementBook = settle(undefined, event, marketBook, 0, Date.parse(event.info.lastUpdatedAt)),
): V1Rendered<v1.V1Result> {
  let pending = 0;
  const markets = marketsOf(marketBook).map(({ groupID, sides }): v1.V1MarketResult => {
    const first = sides[0] as ContractOdds;
    const settled = settlement.markets[groupID];
    if (!settled) pending++;
    return {
      market_id: v1.v1Id("market", groupID),
      name: marketName(sides),
      period_id: first.periodID,
      bet_type: first.betTypeID,
      player_id: first.playerID ? v1.v1Id("player", first.playerID) : null,
      settled: settled !== undefined,
      settled_at: settled ? isoTime(settled.settledAtMs) : null,
      outcomes: sides.map((side) => outcomeResult(side, settled?.outcomes[side.oddID])),
    };
  });
  const corrections = settlement.corrections.map((correction) => ({
    corrected_at: isoTime(correction.correctedAtMs),
    scores_before: scoresWithRoles(event, correction.scoresBefore),
    scores: scoresWithRoles(event, correction.scores),
    outcomes: correction.changes.map((change) => ({
      market_id: v1.v1Id("market", change.marketGroupID),
      outcome_id: v1.v1Id("outcome", change.oddID),
      previous_verdict: change.previous.verdict,
      verdict: change.settlement.verdict,
    })),
  }));
  return {
    object: {
      event_id: v1.v1Id("event", event.eventID),
      league_id: event.leagueID,
      starts_at: event.status.startsAt,
      status: v1StatusOf(event.status),
      final: event.status.finalized,
      scores: scoresWithRoles(event),
      periods_ended: event.status.periods.ended,
      pending_markets: pending,
      corrected_at: corrections.at(-1)?.corrected_at ?? null,
      corrections,
      markets,
    },
    objects: 1,
    validUntilMs: Number.POSITIVE_INFINITY,
  };
}
