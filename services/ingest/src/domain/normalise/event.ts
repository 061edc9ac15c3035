// One event of a cycle, built from the highest-ranked source's event and the chosen books.
import type { FeedEvent } from "../../sources/feed-source";
import type { EventState } from "../model";
import { toStatEntityID, toToken } from "../odd-id";
import { priceEvent } from "./odds";
import { eventPlayers, teamState } from "./participants";
import type { EventBooks, EventFromSource } from "./sources";
import { eventStatus, periodStateOf } from "./status";

export interface NormaliseOptions {
  /** Sharp and exchange bookmakers whose prices are de-vigged into fair odds. */
  fairOddsBookmakers: readonly string[];
}

export function buildEvent(
  primary: EventFromSource,
  books: EventBooks,
  lastUpdatedAtMs: number,
  options: NormaliseOptions,
): EventState {
  const { event, league } = primary;
  const home = teamState(event.home, "home");
  const away = teamState(event.away, "away");
  const odds = priceEvent(books.chosen, {
    sportID: league.sportID,
    players: new Map(event.players.map((p) => [p.playerID, p.name])),
    teamNames: { home: home.names.long, away: away.names.long },
    periodState: periodStateOf(event),
    fairOddsBookmakers: options.fairOddsBookmakers,
  });
  const chosen = [...books.chosen.values()];
  return {
    eventID: event.eventID,
    sportID: league.sportID,
    leagueID: league.leagueID,
    type: event.type,
    status: eventStatus(event, odds),
    info: {
      displayName: `${home.names.long} vs ${away.names.long}`,
      commenceTimeMs: event.startsAt.getTime(),
      lastUpdatedAtMs,
      bookmakersPresent: chosen
        .filter((b) => b.quotes.length > 0)
        .map((b) => b.book.bookmaker)
        .sort(),
      sourceBookmakerCount: books.sourceBookmakerCount,
    },
    home,
    away,
    players: eventPlayers(event),
    results: normaliseResults(event.results),
    resultsCorrectedAtMs: event.resultsCorrectedAt?.getTime() ?? 0,
    odds,
    links: {
      bookmakers: Object.fromEntries(chosen.map((b) => [b.book.bookmaker, b.book.eventUrl])),
      betslip: Object.fromEntries(chosen.map((b) => [b.book.bookmaker, { ...b.book.betslip }])),
    },
  };
}

/** periodID -> statEntityID -> statID -> value, every key in the grammar's tokens. */
function normaliseResults(results: FeedEvent["results"]): EventState["results"] {
  const normalised: EventState["results"] = {};
  for (const [period, entities] of Object.entries(results)) {
    const byEntity: Record<string, Record<string, number>> = {};
    for (const [entity, stats] of Object.entries(entities)) {
      byEntity[toStatEntityID(entity)] = Object.fromEntries(
        Object.entries(stats).map(([stat, value]) => [toToken(stat), value]),
      );
    }
    normalised[toToken(period)] = byEntity;
  }
  return normalised;
}
