import type { events } from "@odds/proto";

/**
 * The contract's Event, Odds and ByBookmakerOdds objects, rendered from the stored proto once
 * per cycle. Key order follows the contract tables; maps are sorted by key so the same content
 * always renders to the same bytes.
 */

export interface ContractBookmakerOdds {
  bookmakerID: string;
  odds: string;
  decimal: number;
  overUnder?: string;
  spread?: string;
  available: boolean;
  lastUpdatedAt: string;
  eventName: string;
  deeplink?: string;
}

export interface ContractAltLine {
  byBookmaker: Record<string, ContractBookmakerOdds>;
}

export interface ContractOdds {
  oddID: string;
  opposingOddID: string | null;
  marketName: string;
  statID: string;
  statEntityID: string;
  periodID: string;
  betTypeID: string;
  sideID: string;
  playerID?: string;
  bookOdds: string;
  bookOddsAvailable: boolean;
  bookSpread: string | null;
  bookOverUnder: string | null;
  fairOdds: string | null;
  fairOddsAvailable: boolean;
  fairSpread: string | null;
  fairOverUnder: string | null;
  started: boolean;
  ended: boolean;
  cancelled: boolean;
  scoringSupported: boolean;
  byBookmaker: Record<string, ContractBookmakerOdds>;
  /** Present only when the request asks for includeAltLines=true. */
  altLines?: Record<string, ContractAltLine>;
}

export interface ContractTeam {
  teamID: string;
  names: { long: string; medium: string; short: string };
  colors: { primary?: string; secondary?: string; primaryContrast?: string; secondaryContrast?: string };
  statEntityID: string;
  score: number | null;
}

export interface ContractEvent {
  eventID: string;
  sportID: string;
  leagueID: string;
  type: string;
  status: {
    started: boolean;
    ended: boolean;
    live: boolean;
    cancelled: boolean;
    delayed: boolean;
    finalized: boolean;
    completed: boolean;
    startsAt: string;
    oddsPresent: boolean;
    oddsAvailable: boolean;
    currentPeriodID: string | null;
    periods: { started: string[]; ended: string[] };
    displayShort: string;
    displayLong: string;
  };
  info: {
    displayName: string;
    commenceTime: string;
    lastUpdatedAt: string;
    stale: boolean;
    bookmakersPresent: string[];
    sourceBookmakerCount: number;
  };
  teams: { home: ContractTeam | null; away: ContractTeam | null };
  players: Record<string, { playerID: string; teamID: string; name: string; firstName: string; lastName: string }>;
  results: Record<string, Record<string, Record<string, number>>>;
  odds: Record<string, ContractOdds>;
  links: { bookmakers: Record<string, string>; betslip: Record<string, { kind: string; urlTemplate: string | null }> };
}

/** ISO 8601 UTC from Unix milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function sortedMap<V, R>(source: Record<string, V>, render: (value: V, key: string) => R): Record<string, R> {
  const out: Record<string, R> = {};
  for (const key of Object.keys(source).sort()) out[key] = render(source[key] as V, key);
  return out;
}

function nullable(value: string | undefined): string | null {
  return value === undefined || value === "" ? null : value;
}

export function renderBookmakerOdds(quote: events.BookmakerOdds, bookmakerID: string): ContractBookmakerOdds {
  return {
    bookmakerID: quote.bookmakerId || bookmakerID,
    odds: quote.odds,
    decimal: quote.decimal,
    ...(quote.overUnder ? { overUnder: quote.overUnder } : {}),
    ...(quote.spread ? { spread: quote.spread } : {}),
    available: quote.available,
    lastUpdatedAt: isoTime(quote.lastUpdatedAtMs),
    eventName: quote.eventName,
    ...(quote.deeplink ? { deeplink: quote.deeplink } : {}),
  };
}

/** One side of one market, alternate lines included (the shaping step drops them unless asked for). */
export function renderOdds(odds: events.Odds, oddID: string): ContractOdds {
  return {
    oddID: odds.oddId || oddID,
    opposingOddID: nullable(odds.opposingOddId),
    marketName: odds.marketName,
    statID: odds.statId,
    statEntityID: odds.statEntityId,
    periodID: odds.periodId,
    betTypeID: odds.betTypeId,
    sideID: odds.sideId,
    ...(odds.playerId ? { playerID: odds.playerId } : {}),
    bookOdds: odds.bookOdds,
    bookOddsAvailable: odds.bookOddsAvailable,
    bookSpread: nullable(odds.bookSpread),
    bookOverUnder: nullable(odds.bookOverUnder),
    fairOdds: nullable(odds.fairOdds),
    fairOddsAvailable: odds.fairOddsAvailable,
    fairSpread: nullable(odds.fairSpread),
    fairOverUnder: nullable(odds.fairOverUnder),
    started: odds.started,
    ended: odds.ended,
    cancelled: odds.cancelled,
    scoringSupported: odds.scoringSupported,
    byBookmaker: sortedMap(odds.byBookmaker, renderBookmakerOdds),
    altLines: sortedMap(odds.altLines, (alt) => ({ byBookmaker: sortedMap(alt.byBookmaker, renderBookmakerOdds) })),
  };
}

function renderTeam(team: events.EventTeam | undefined): ContractTeam | null {
  if (!team) return null;
  const colors = team.colors;
  return {
    teamID: team.teamId,
    names: { long: team.names?.long ?? "", medium: team.names?.medium ?? "", short: team.names?.short ?? "" },
    colors: {
      ...(colors?.primary ? { primary: colors.primary } : {}),
      ...(colors?.secondary ? { secondary: colors.secondary } : {}),
      ...(colors?.primaryContrast ? { primaryContrast: colors.primaryContrast } : {}),
      ...(colors?.secondaryContrast ? { secondaryContrast: colors.secondaryContrast } : {}),
    },
    statEntityID: team.statEntityId,
    score: team.score ?? null,
  };
}

/** Whether the event carries any market, and any market open at some bookmaker (derived from its odds). */
export function oddsState(event: events.Event): { oddsPresent: boolean; oddsAvailable: boolean } {
  const sides = Object.values(event.odds);
  return { oddsPresent: sides.length > 0, oddsAvailable: sides.some((side) => side.bookOddsAvailable) };
}

/** The full contract Event: every odds side with alternate lines and fair prices, info.stale false. */
export function renderEvent(event: events.Event): ContractEvent {
  const status = event.status;
  const info = event.info;
  const startsAtMs = status?.startsAtMs ?? 0;
  return {
    eventID: event.eventId,
    sportID: event.sportId,
    leagueID: event.leagueId,
    type: event.type,
    status: {
      started: status?.started ?? false,
      ended: status?.ended ?? false,
      live: status?.live ?? false,
      cancelled: status?.cancelled ?? false,
      delayed: status?.delayed ?? false,
      finalized: status?.finalized ?? false,
      completed: status?.completed ?? false,
      startsAt: isoTime(startsAtMs),
      ...oddsState(event),
      currentPeriodID: nullable(status?.currentPeriodId),
      periods: { started: status?.periodsStarted ?? [], ended: status?.periodsEnded ?? [] },
      displayShort: status?.displayShort ?? "",
      displayLong: status?.displayLong ?? "",
    },
    info: {
      displayName: info?.displayName ?? "",
      commenceTime: isoTime(info?.commenceTimeMs || startsAtMs),
      lastUpdatedAt: isoTime(info?.lastUpdatedAtMs ?? 0),
      stale: false,
      bookmakersPresent: [...(info?.bookmakersPresent ?? [])].sort(),
      sourceBookmakerCount: info?.sourceBookmakerCount ?? 0,
    },
    teams: { home: renderTeam(event.home), away: renderTeam(event.away) },
    players: sortedMap(event.players, (player, playerID) => ({
      playerID: player.playerId || playerID,
      teamID: player.teamId,
      name: player.name,
      firstName: player.firstName,
      lastName: player.lastName,
    })),
    results: sortedMap(event.results, (period) =>
      sortedMap(period.entities, (entity) => sortedMap(entity.stats, (value) => value)),
    ),
    odds: sortedMap(event.odds, renderOdds),
    links: {
      bookmakers: sortedMap(event.links?.bookmakers ?? {}, (url) => url),
      betslip: sortedMap(event.links?.betslip ?? {}, (strategy) => ({
        kind: strategy.kind,
        urlTemplate: nullable(strategy.urlTemplate),
      })),
    },
  };
}
