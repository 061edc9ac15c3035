import { events } from "@odds/proto";
import type { EventQuery } from "../src/query";

/** Constructed Event protos for tests: an AFL match with game lines, alt lines, a player prop and a pick market. */

export const HOUR = 60 * 60 * 1000;
export const NOW = Date.parse("2026-11-21T12:00:00Z");

export function quote(
  bookmakerId: string,
  odds: string,
  extra: Partial<events.BookmakerOdds> = {},
): events.BookmakerOdds {
  const american = Number(odds);
  const decimal = american > 0 ? 1 + american / 100 : 1 + 100 / -american;
  return events.BookmakerOdds.create({
    bookmakerId,
    odds,
    decimal: Math.round(decimal * 1000) / 1000,
    available: true,
    lastUpdatedAtMs: NOW - 60_000,
    eventName: "Home v Away",
    deeplink: `https://${bookmakerId}.example/market`,
    ...extra,
  });
}

function side(oddId: string, fields: Partial<events.Odds>): events.Odds {
  const [statId, statEntityId, periodId, betTypeId, sideId] = oddId.split("-") as [
    string,
    string,
    string,
    string,
    string,
  ];
  return events.Odds.create({
    oddId,
    marketName: `${statId} ${betTypeId}`,
    statId,
    statEntityId,
    periodId,
    betTypeId,
    sideId,
    bookOdds: "-110",
    bookOddsAvailable: true,
    fairOdds: "+100",
    fairOddsAvailable: true,
    scoringSupported: true,
    ...fields,
  });
}

export interface EventOptions {
  eventId: string;
  leagueId?: string;
  sportId?: string;
  type?: string;
  startsAtMs?: number;
  lastUpdatedAtMs?: number;
  status?: Partial<events.EventStatus>;
  homeTeamId?: string;
  awayTeamId?: string;
  playerId?: string;
  /** No markets at all (oddsPresent false). */
  noOdds?: boolean;
  /** Every side suspended (oddsAvailable false). */
  suspended?: boolean;
}

export function eventProto(options: EventOptions): events.Event {
  const leagueId = options.leagueId ?? "AFL";
  const playerId = options.playerId ?? `JOHN_SMITH_1_${leagueId}`;
  const open = !options.suspended;
  const odds: Record<string, events.Odds> = options.noOdds
    ? {}
    : {
        "points-home-game-ml-home": side("points-home-game-ml-home", {
          opposingOddId: "points-away-game-ml-away",
          bookOdds: "-150",
          bookOddsAvailable: open,
          byBookmaker: { sportsbet: quote("sportsbet", "-150"), pinnacle: quote("pinnacle", "-145") },
        }),
        "points-away-game-ml-away": side("points-away-game-ml-away", {
          opposingOddId: "points-home-game-ml-home",
          bookOdds: "+130",
          bookOddsAvailable: open,
          byBookmaker: { sportsbet: quote("sportsbet", "+130"), pinnacle: quote("pinnacle", "+125") },
        }),
        "points-all-game-ou-over": side("points-all-game-ou-over", {
          opposingOddId: "points-all-game-ou-under",
          bookOverUnder: "165.5",
          fairOverUnder: "166",
          bookOddsAvailable: open,
          byBookmaker: { tab: quote("tab", "-110", { overUnder: "165.5" }) },
          altLines: {
            "170.5": { byBookmaker: { tab: quote("tab", "+120", { overUnder: "170.5" }) } },
            "160.5": { byBookmaker: { pinnacle: quote("pinnacle", "-140", { overUnder: "160.5" }) } },
          },
        }),
        "points-all-game-ou-under": side("points-all-game-ou-under", {
          opposingOddId: "points-all-game-ou-over",
          bookOverUnder: "165.5",
          bookOddsAvailable: open,
          byBookmaker: { tab: quote("tab", "-110", { overUnder: "165.5" }) },
        }),
        [`disposals-${playerId}-game-ou-over`]: side(`disposals-${playerId}-game-ou-over`, {
          opposingOddId: `disposals-${playerId}-game-ou-under`,
          playerId,
          bookOverUnder: "24.5",
          bookOddsAvailable: open,
          byBookmaker: { sportsbet: quote("sportsbet", "-115", { overUnder: "24.5" }) },
        }),
        [`disposals-${playerId}-game-ou-under`]: side(`disposals-${playerId}-game-ou-under`, {
          opposingOddId: `disposals-${playerId}-game-ou-over`,
          playerId,
          bookOverUnder: "24.5",
          bookOddsAvailable: open,
          byBookmaker: { sportsbet: quote("sportsbet", "-105", { overUnder: "24.5" }) },
        }),
        "firstgoal-all-game-pick-home": side("firstgoal-all-game-pick-home", {
          opposingOddId: "",
          bookOddsAvailable: open,
          fairOdds: undefined,
          fairOddsAvailable: false,
          byBookmaker: { neds: quote("neds", "+400") },
        }),
      };
  const startsAtMs = options.startsAtMs ?? NOW + 2 * HOUR;
  const homeTeamId = options.homeTeamId ?? `COLLINGWOOD_MAGPIES_${leagueId}`;
  const awayTeamId = options.awayTeamId ?? `CARLTON_BLUES_${leagueId}`;
  return events.Event.create({
    eventId: options.eventId,
    sportId: options.sportId ?? "AUSSIE_RULES",
    leagueId,
    type: options.type ?? "match",
    status: events.EventStatus.create({
      startsAtMs,
      displayShort: "Upcoming",
      displayLong: "Upcoming",
      ...options.status,
    }),
    info: events.EventInfo.create({
      displayName: "Collingwood v Carlton",
      commenceTimeMs: startsAtMs,
      lastUpdatedAtMs: options.lastUpdatedAtMs ?? NOW - 60_000,
      bookmakersPresent: ["tab", "sportsbet", "pinnacle", "neds"],
      sourceBookmakerCount: 4,
    }),
    home: events.EventTeam.create({
      teamId: homeTeamId,
      names: { long: "Collingwood Magpies", medium: "Collingwood", short: "COL" },
      colors: { primary: "#000000", secondary: "#FFFFFF", primaryContrast: "", secondaryContrast: "" },
      statEntityId: "home",
    }),
    away: events.EventTeam.create({
      teamId: awayTeamId,
      names: { long: "Carlton Blues", medium: "Carlton", short: "CAR" },
      statEntityId: "away",
      score: 12,
    }),
    players: {
      [playerId]: { playerId, teamId: homeTeamId, name: "John Smith", firstName: "John", lastName: "Smith" },
    },
    results: { "1q": { entities: { home: { stats: { points: 21 } }, away: { stats: { points: 12 } } } } },
    odds,
    links: {
      bookmakers: { sportsbet: "https://sportsbet.example/e/1", tab: "https://tab.example/e/1" },
      betslip: { sportsbet: { kind: "deeplink", urlTemplate: "https://sportsbet.example/slip?s={selection}" } },
    },
  });
}

/** A /events/ query with nothing set but the given fields. */
export function eventQuery(overrides: Partial<EventQuery> = {}): EventQuery {
  return {
    eventIDs: [],
    sportIDs: [],
    leagueIDs: [],
    oddIDs: [],
    includeOpposingOdds: false,
    includeAltLines: false,
    bookmakerIDs: [],
    teamIDs: [],
    playerIDs: [],
    includeFinished: false,
    ...overrides,
  };
}
