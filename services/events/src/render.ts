import type { events, objects } from "@odds/proto";

/**
 * The contract's Event, Odds and ByBookmakerOdds objects, rendered from the stored proto once
 * per cycle. Key order follows the contract tables; maps are sorted by key so the same content
 * always renders to the same bytes.
 */

export type ContractBookmakerOdds = objects.ByBookmakerOdds;
export type ContractAltLine = objects.AltLine;
export type ContractOdds = objects.Odds;
export type ContractTeam = objects.EventTeam;
export type ContractEvent = objects.Event;

let lastIso = { ms: Number.NaN, iso: "" };

/** ISO 8601 UTC from Unix milliseconds (prices of one observation share a time: the last one is kept formatted). */
export function isoTime(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, iso: new Date(ms).toISOString() };
  return lastIso.iso;
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
    // Ingest writes only the contract's event types.
    type: event.type as ContractEvent["type"],
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

/** An event's JSON in the two forms the read model keeps: full, and without alternate lines (the default shape). */
export interface ContractJson {
  full: string;
  withoutAltLines: string;
}

/**
 * `JSON.stringify(event)` and the same bytes with every side's `altLines` left out (what
 * `shapeEvent(event, FULL_SHAPE)` renders), each price stringified once for both: `altLines` is a
 * side's last key, so a side's full JSON is its JSON without them plus that one member.
 */
export function contractJson(event: ContractEvent): ContractJson {
  const full: string[] = [];
  const withoutAltLines: string[] = [];
  for (const [oddID, side] of Object.entries(event.odds)) {
    const { altLines, ...rest } = side;
    const member = sideMember(oddID, rest);
    withoutAltLines.push(member);
    full.push(altLines === undefined ? member : `${member.slice(0, -1)},"altLines":${JSON.stringify(altLines)}}`);
  }
  return {
    full: objectJsonWith(event, "odds", `{${full.join(",")}}`),
    withoutAltLines: objectJsonWith(event, "odds", `{${withoutAltLines.join(",")}}`),
  };
}

/** `contractJson(event).withoutAltLines` alone (the full form is at hand: a stored event being loaded). */
export function contractJsonWithoutAltLines(event: ContractEvent): string {
  const members = Object.entries(event.odds).map(([oddID, { altLines: _altLines, ...rest }]) =>
    sideMember(oddID, rest),
  );
  return objectJsonWith(event, "odds", `{${members.join(",")}}`);
}

/** One member of `odds`, its side without alternate lines. */
function sideMember(oddID: string, side: Omit<ContractOdds, "altLines">): string {
  return `${JSON.stringify(oddID)}:${JSON.stringify(side)}`;
}

/** `JSON.stringify(object)` with one member's value given as JSON already. */
function objectJsonWith(object: object, key: string, valueJson: string): string {
  const members: string[] = [];
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(name)}:${name === key ? valueJson : JSON.stringify(value)}`);
  }
  return `{${members.join(",")}}`;
}
