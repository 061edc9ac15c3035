import { filters, oddId, planScope, pricing, staleness } from "@odds/proto";
import { z } from "zod";
import { pricesForPlan } from "./plan-prices";
import type { ContractAltLine, ContractBookmakerOdds, ContractEvent, ContractOdds } from "./render";

const { matchesFlag, matchesList } = filters;

/**
 * The rules of GET /v2/events/ as pure functions: which events a query selects, in what
 * order, and how each selected event's odds are shaped. No I/O, no clock of its own.
 */

/** Rule 3: without a date window, eventID or includeFinished, events that kicked off longer ago are omitted. */
export const FINISHED_CUTOFF_MS = 24 * 60 * 60 * 1000;
/** The oddID filter's wildcard for the statEntityID slot of player props. */

/** What the caller's plan lets it see (rule 4): the contract package's one definition. */
export type PlanScope = planScope.PlanScope;

export interface EventQuery {
  eventIDs: string[];
  sportIDs: string[];
  leagueIDs: string[];
  type?: string;
  oddsAvailable?: boolean;
  oddsPresent?: boolean;
  oddIDs: string[];
  includeOpposingOdds: boolean;
  includeAltLines: boolean;
  bookmakerIDs: string[];
  teamIDs: string[];
  playerIDs: string[];
  finalized?: boolean;
  live?: boolean;
  started?: boolean;
  ended?: boolean;
  cancelled?: boolean;
  startsAfterMs?: number;
  startsBeforeMs?: number;
  includeFinished: boolean;
}

/** What selection needs to know about one event, extracted once per cycle. */
export interface EventFacts {
  eventID: string;
  sportID: string;
  leagueID: string;
  type: string;
  startsAtMs: number;
  started: boolean;
  ended: boolean;
  live: boolean;
  cancelled: boolean;
  delayed: boolean;
  finalized: boolean;
  oddsPresent: boolean;
  oddsAvailable: boolean;
  teamIDs: ReadonlySet<string>;
  playerIDs: ReadonlySet<string>;
}

export function factsOf(event: ContractEvent): EventFacts {
  const playerIDs = new Set(Object.keys(event.players));
  for (const side of Object.values(event.odds)) if (side.playerID) playerIDs.add(side.playerID);
  const teamIDs = [event.teams.home?.teamID, event.teams.away?.teamID].filter((id): id is string => !!id);
  return {
    eventID: event.eventID,
    sportID: event.sportID,
    leagueID: event.leagueID,
    type: event.type,
    startsAtMs: Date.parse(event.status.startsAt),
    started: event.status.started,
    ended: event.status.ended,
    live: event.status.live,
    cancelled: event.status.cancelled,
    delayed: event.status.delayed,
    finalized: event.status.finalized,
    oddsPresent: event.status.oddsPresent,
    oddsAvailable: event.status.oddsAvailable,
    teamIDs: new Set(teamIDs),
    playerIDs,
  };
}

/** Rule 4: the event's sport and league are in the plan. Applies even to eventID lookups. */
export function planAllowsEvent(facts: EventFacts, plan: PlanScope): boolean {
  return planScope.leagueVisible(plan, facts.leagueID, facts.sportID);
}

function anyIn(wanted: string[], actual: ReadonlySet<string>): boolean {
  return wanted.length === 0 || wanted.some((id) => actual.has(id));
}

/** Rule 3: the earliest kickoff a query without a date window, eventID or includeFinished can see. */
export function earliestStartMs(query: EventQuery, nowMs: number): number | undefined {
  if (query.eventIDs.length > 0 || query.includeFinished) return undefined;
  if (query.startsAfterMs !== undefined || query.startsBeforeMs !== undefined) return undefined;
  return nowMs - FINISHED_CUTOFF_MS;
}

/**
 * Whether the query selects the event (plan visibility is checked separately).
 * Rule 1: with eventIDs, those IDs are the ONLY selector: every other event filter (including
 * type, ended, cancelled, teamID, playerID, oddsAvailable, oddsPresent and the cut-off) is ignored.
 */
export function selectsEvent(facts: EventFacts, query: EventQuery, nowMs: number): boolean {
  if (query.eventIDs.length > 0) return query.eventIDs.includes(facts.eventID);
  const earliest = earliestStartMs(query, nowMs);
  return (
    (earliest === undefined || facts.startsAtMs >= earliest) &&
    (query.startsAfterMs === undefined || facts.startsAtMs > query.startsAfterMs) &&
    (query.startsBeforeMs === undefined || facts.startsAtMs < query.startsBeforeMs) &&
    matchesList(query.sportIDs, facts.sportID) &&
    matchesList(query.leagueIDs, facts.leagueID) &&
    (query.type === undefined || query.type === facts.type) &&
    matchesFlag(query.live, facts.live) &&
    matchesFlag(query.started, facts.started) &&
    matchesFlag(query.ended, facts.ended) &&
    matchesFlag(query.finalized, facts.finalized) &&
    matchesFlag(query.cancelled, facts.cancelled) &&
    matchesFlag(query.oddsAvailable, facts.oddsAvailable) &&
    matchesFlag(query.oddsPresent, facts.oddsPresent) &&
    anyIn(query.teamIDs, facts.teamIDs) &&
    anyIn(query.playerIDs, facts.playerIDs)
  );
}

/** Keyset position in the /events order: startsAt ascending, then eventID. */
export const pagePositionSchema = z.object({ s: z.number().int(), e: z.string().min(1) });
export type PagePosition = z.output<typeof pagePositionSchema>;

export function positionOf(facts: EventFacts): PagePosition {
  return { s: facts.startsAtMs, e: facts.eventID };
}

export function compareOrder(a: PagePosition, b: PagePosition): number {
  if (a.s !== b.s) return a.s - b.s;
  return a.e < b.e ? -1 : a.e > b.e ? 1 : 0;
}

/** The filters a cursor is bound to: everything but paging and the caller, lists order-free. */
export function cursorBinding(query: EventQuery): Record<string, unknown> {
  const binding: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    binding[key] = Array.isArray(value) ? [...new Set(value as string[])].sort() : value;
  }
  return binding;
}

/** Rule 2 plus plan: how each selected event's odds are shaped for this request. */
export interface OddsShape {
  /** oddID patterns; empty = every side. */
  oddIDs: string[];
  includeOpposingOdds: boolean;
  includeAltLines: boolean;
  /** Sides of these players only; empty = every side. */
  playerIDs: string[];
  /** Visible bookmakers (plan ∩ request); null = every bookmaker. */
  bookmakerIDs: ReadonlySet<string> | null;
  /** The plan's bookmakers, over which consensus and fair prices are taken; null = every bookmaker. */
  planBookmakerIDs: ReadonlySet<string> | null;
  /** The sharp and exchange bookmakers fair prices come from (when the plan shows them). */
  fairOddsBookmakers: readonly string[];
  fairOdds: boolean;
}

export function shapeFor(
  query: EventQuery,
  plan: PlanScope,
  fairOddsBookmakers: readonly string[] = pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS,
): OddsShape {
  const requested = query.bookmakerIDs.length > 0 ? new Set(query.bookmakerIDs) : null;
  let bookmakerIDs: ReadonlySet<string> | null = requested ?? plan.bookmakerIDs;
  if (requested && plan.bookmakerIDs) bookmakerIDs = new Set([...requested].filter((id) => plan.bookmakerIDs?.has(id)));
  return {
    oddIDs: query.oddIDs,
    includeOpposingOdds: query.includeOpposingOdds,
    includeAltLines: query.includeAltLines,
    playerIDs: query.playerIDs,
    bookmakerIDs,
    planBookmakerIDs: plan.bookmakerIDs,
    fairOddsBookmakers,
    fairOdds: plan.fairOdds,
  };
}

/** A key for caching the rendering of a shape that depends only on plan-like settings; undefined = do not cache. */
export function shapeCacheKey(shape: OddsShape): string | undefined {
  if (shape.oddIDs.length > 0 || shape.playerIDs.length > 0) return undefined;
  const list = (ids: ReadonlySet<string> | null) => (ids === null ? "*" : [...ids].sort().join(","));
  return `${shape.fairOdds ? "f" : "-"}${shape.includeAltLines ? "a" : "-"}|${list(shape.bookmakerIDs)}|${list(shape.planBookmakerIDs)}`;
}

/** Every field of a shape, stably written: equal for shapes that render each event alike. */
export function shapeIdentity(shape: OddsShape): string {
  const list = (ids: ReadonlySet<string> | null) => (ids === null ? null : [...ids].sort());
  return JSON.stringify({
    ...shape,
    bookmakerIDs: list(shape.bookmakerIDs),
    planBookmakerIDs: list(shape.planBookmakerIDs),
  });
}

/** The shape served when nothing narrows or widens the stored rendering. */
export const FULL_SHAPE: OddsShape = {
  oddIDs: [],
  includeOpposingOdds: false,
  includeAltLines: false,
  playerIDs: [],
  bookmakerIDs: null,
  planBookmakerIDs: null,
  fairOddsBookmakers: [],
  fairOdds: true,
};

function pickBookmakers<V>(entries: Record<string, V>, visible: ReadonlySet<string> | null): Record<string, V> {
  if (visible === null) return entries;
  const out: Record<string, V> = {};
  for (const [bookmakerID, value] of Object.entries(entries)) if (visible.has(bookmakerID)) out[bookmakerID] = value;
  return out;
}

function shapeSide(side: ContractOdds, shape: OddsShape): ContractOdds | undefined {
  const { altLines, ...rest } = side;
  const byBookmaker: Record<string, ContractBookmakerOdds> = pickBookmakers(side.byBookmaker, shape.bookmakerIDs);
  // A side no visible bookmaker prices is left out rather than shown as a bare consensus.
  if (shape.bookmakerIDs !== null && Object.keys(byBookmaker).length === 0) return undefined;
  const shaped: ContractOdds = { ...rest, byBookmaker };
  if (!shape.fairOdds) {
    // Hidden by plan reads as not available: a true flag beside a null price would contradict itself.
    shaped.fairOddsAvailable = false;
    shaped.fairOdds = null;
    shaped.fairSpread = null;
    shaped.fairOverUnder = null;
  }
  if (shape.includeAltLines) {
    const lines: Record<string, ContractAltLine> = {};
    for (const [line, alt] of Object.entries(altLines ?? {})) {
      const visible = pickBookmakers(alt.byBookmaker, shape.bookmakerIDs);
      if (Object.keys(visible).length > 0) lines[line] = { byBookmaker: visible };
    }
    shaped.altLines = lines;
  }
  return shaped;
}

/**
 * Whether `shapeEvent` can be given only the sides whose oddID the filter names (plus, with
 * includeOpposingOdds, their opposing sides) and render what it renders from every side: true when
 * an oddID filter is set and consensus and fair prices need no re-take over the plan's bookmakers
 * (which reads every side of a market group).
 */
export function keepsOnlyNamedSides(shape: OddsShape): boolean {
  return shape.oddIDs.length > 0 && shape.planBookmakerIDs === null;
}

/** The oddIDs of the event this shape keeps, in the event's order. */
export function selectedOddIDs(odds: Record<string, ContractOdds>, shape: OddsShape): string[] {
  const all = Object.keys(odds);
  if (shape.oddIDs.length === 0 && shape.playerIDs.length === 0) return all;
  const keep = new Set<string>();
  const wanted = oddId.oddIDFilter(shape.oddIDs);
  for (const oddID of all) {
    const side = odds[oddID] as ContractOdds;
    const byOddID = wanted(side.oddID);
    const byPlayer = shape.playerIDs.length === 0 || (!!side.playerID && shape.playerIDs.includes(side.playerID));
    if (byOddID && byPlayer) keep.add(oddID);
  }
  if (shape.includeOpposingOdds) {
    for (const oddID of [...keep]) {
      const opposing = odds[oddID]?.opposingOddID;
      if (opposing && odds[opposing]) keep.add(opposing);
    }
  }
  return all.filter((oddID) => keep.has(oddID));
}

/**
 * The members of an event `shapeEvent` reads and may rewrite; it copies every other member as it is, so a caller
 * may hand it an event of these members alone and take the rest from the event's bytes (`objectJsonWith`).
 */
export const SHAPED_EVENT_MEMBERS: ReadonlySet<string> = new Set([
  "info",
  "odds",
  "links",
] satisfies (keyof ContractEvent)[]);

/** A new contract Event with odds, bookmakers, links and fair prices shaped for the request and plan. */
export function shapeEvent(event: ContractEvent, shape: OddsShape): ContractEvent {
  const planned = shape.planBookmakerIDs;
  // Prices over the plan's bookmakers (a request's bookmakerID filter narrows what is shown, not the consensus).
  const priced = planned === null ? event.odds : pricesForPlan(event.odds, planned, shape.fairOddsBookmakers);
  const odds: Record<string, ContractOdds> = {};
  for (const oddID of selectedOddIDs(priced, shape)) {
    const shaped = shapeSide(priced[oddID] as ContractOdds, shape);
    if (shaped) odds[oddID] = shaped;
  }
  const visible = shape.bookmakerIDs;
  const info =
    planned === null
      ? event.info
      : {
          ...event.info,
          // Each bookmaker the plan shows counts once, whatever number of sources carried it.
          sourceBookmakerCount: event.info.bookmakersPresent.filter((id) => planned.has(id)).length,
        };
  return {
    ...event,
    info:
      visible === null ? info : { ...info, bookmakersPresent: info.bookmakersPresent.filter((id) => visible.has(id)) },
    odds,
    links:
      visible === null
        ? event.links
        : {
            bookmakers: pickBookmakers(event.links.bookmakers, visible),
            betslip: pickBookmakers(event.links.betslip, visible),
          },
  };
}

/** info.stale: the contract's one definition (the edge's /health uses the same). */
export const isStale = staleness.isStale;
