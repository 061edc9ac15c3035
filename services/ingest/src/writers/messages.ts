// Maps the domain's cycle content to the write RPC messages of events, history and catalogue.
import { type catalogue, type events, type history } from "@odds/proto";
import type {
  BookmakerPrice,
  BookObservation,
  CatalogueContent,
  EventRef,
  EventState,
  SideOdds,
} from "../domain/model";
import type { EventStamps } from "../domain/observation-stamps";

/** A record's values mapped, keys in their order (a loop: entries arrays per side and price cost a cycle seconds). */
function mapValues<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  const mapped: Record<string, U> = {};
  for (const key of Object.keys(record)) mapped[key] = map(record[key] as T);
  return mapped;
}

function bookmakerOdds(price: BookmakerPrice): events.BookmakerOdds {
  return {
    bookmakerId: price.bookmakerID,
    odds: price.odds,
    decimal: price.decimal,
    overUnder: price.overUnder,
    spread: price.spread,
    available: price.available,
    lastUpdatedAtMs: price.lastUpdatedAtMs,
    eventName: price.eventName,
    deeplink: price.deeplink,
  };
}

function oddsMessage(side: SideOdds): events.Odds {
  return {
    oddId: side.oddID,
    opposingOddId: side.opposingOddID ?? "",
    marketName: side.marketName,
    statId: side.statID,
    statEntityId: side.statEntityID,
    periodId: side.periodID,
    betTypeId: side.betTypeID,
    sideId: side.sideID,
    playerId: side.playerID ?? "",
    bookOdds: side.bookOdds,
    bookOddsAvailable: side.bookOddsAvailable,
    bookSpread: side.bookSpread,
    bookOverUnder: side.bookOverUnder,
    fairOdds: side.fairOdds,
    fairOddsAvailable: side.fairOddsAvailable,
    fairSpread: side.fairSpread,
    fairOverUnder: side.fairOverUnder,
    started: side.started,
    ended: side.ended,
    cancelled: side.cancelled,
    scoringSupported: side.scoringSupported,
    byBookmaker: mapValues(side.byBookmaker, bookmakerOdds),
    altLines: mapValues(side.altLines, (byBookmaker) => ({ byBookmaker: mapValues(byBookmaker, bookmakerOdds) })),
  };
}

export function eventMessage(event: EventState): events.Event {
  const team = (t: EventState["home"]): events.EventTeam => ({
    teamId: t.teamID,
    names: { ...t.names },
    colors: { ...t.colors },
    statEntityId: t.statEntityID,
    score: t.score,
  });
  return {
    eventId: event.eventID,
    sportId: event.sportID,
    leagueId: event.leagueID,
    type: event.type,
    status: {
      started: event.status.started,
      ended: event.status.ended,
      live: event.status.live,
      cancelled: event.status.cancelled,
      delayed: event.status.delayed,
      finalized: event.status.finalized,
      completed: event.status.completed,
      startsAtMs: event.status.startsAtMs,
      oddsPresent: event.status.oddsPresent,
      oddsAvailable: event.status.oddsAvailable,
      currentPeriodId: event.status.currentPeriodID,
      periodsStarted: [...event.status.periodsStarted],
      periodsEnded: [...event.status.periodsEnded],
      displayShort: event.status.displayShort,
      displayLong: event.status.displayLong,
    },
    info: { ...event.info, bookmakersPresent: [...event.info.bookmakersPresent] },
    home: team(event.home),
    away: team(event.away),
    players: mapValues(event.players, (p) => ({
      playerId: p.playerID,
      teamId: p.teamID,
      name: p.name,
      firstName: p.firstName,
      lastName: p.lastName,
    })),
    results: mapValues(event.results, (entities) => ({
      entities: mapValues(entities, (stats) => ({ stats: { ...stats } })),
    })),
    resultsCorrectedAtMs: event.resultsCorrectedAtMs,
    odds: mapValues(event.odds, oddsMessage),
    closedOdds: mapValues(event.closedOdds ?? {}, oddsMessage),
    links: {
      bookmakers: { ...event.links.bookmakers },
      betslip: mapValues(event.links.betslip, (s) => ({ kind: s.kind, urlTemplate: s.urlTemplate })),
    },
  };
}

export function applyCycleRequest(
  cycleID: string,
  observedAtMs: number,
  batch: EventState[],
  restamped: readonly EventStamps[] = [],
): events.ApplyCycleRequest {
  return {
    cycleId: cycleID,
    observedAtMs,
    events: batch.map(eventMessage),
    restamped: restamped.map((stamps) => ({
      eventId: stamps.eventID,
      lastUpdatedAtMs: stamps.lastUpdatedAtMs,
      bookmakerObservedAtMs: { ...stamps.bookmakers },
    })),
  };
}

export function recordQuotesRequest(refs: EventRef[], observations: BookObservation[]): history.RecordQuotesRequest {
  return {
    events: refs.map((r) => ({
      eventId: r.eventID,
      sportId: r.sportID,
      leagueId: r.leagueID,
      startsAtMs: r.startsAtMs,
    })),
    snapshots: observations.map((o) => ({
      eventId: o.eventID,
      bookmakerId: o.bookmakerID,
      sourceId: o.sourceID,
      sourceRank: o.sourceRank,
      observedAtMs: o.observedAtMs,
      quotes: o.quotes.map((q) => ({
        oddId: q.oddID,
        decimalOdds: q.decimalOdds,
        line: q.line,
        isMainLine: q.isMainLine,
        layOdds: q.layOdds,
        maxStake: q.maxStake,
        available: q.available,
      })),
    })),
  };
}

export function applyCatalogueRequest(cycleID: string, content: CatalogueContent): catalogue.ApplyCatalogueRequest {
  return {
    cycleId: cycleID,
    sports: content.sports.map((s) => ({ sportId: s.sportID, name: s.name, shortName: s.shortName })),
    leagues: content.leagues.map((l) => ({
      leagueId: l.leagueID,
      sportId: l.sportID,
      name: l.name,
      shortName: l.shortName,
    })),
    teams: content.teams.map((t) => ({
      teamId: t.teamID,
      sportId: t.sportID,
      leagueId: t.leagueID,
      longName: t.names.long,
      mediumName: t.names.medium,
      shortName: t.names.short,
      primaryColor: t.colors.primary,
      secondaryColor: t.colors.secondary,
      primaryContrastColor: t.colors.primaryContrast,
      secondaryContrastColor: t.colors.secondaryContrast,
      statEntityId: t.statEntityID,
    })),
    players: content.players.map((p) => ({
      playerId: p.playerID,
      teamId: p.teamID,
      sportId: p.sportID,
      leagueId: p.leagueID,
      name: p.name,
      firstName: p.firstName,
      lastName: p.lastName,
      position: p.position,
      jerseyNumber: p.jerseyNumber,
      eventIds: [...p.eventIDs],
    })),
    stats: content.stats.map((s) => ({
      statId: s.statID,
      levelAll: s.levels.all,
      levelTeam: s.levels.team,
      levelPlayer: s.levels.player,
      displayShort: s.displays.short,
      displayLong: s.displays.long,
      sportIds: [...s.sportIDs],
    })),
    events: content.events.map((e) => ({
      eventId: e.eventID,
      sportId: e.sportID,
      leagueId: e.leagueID,
      active: e.active,
      markets: e.markets.map((m) => ({
        oddId: m.oddID,
        marketName: m.marketName,
        playerId: m.playerID ?? "",
        teamId: m.teamID ?? "",
        bookmakerIds: [...m.bookmakerIDs],
      })),
    })),
  };
}
