import { frameItems } from "@odds/platform";
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
  // Optional members assigned in their place rather than spread in: the same members in the same order, without a
  // throwaway object for each (a priced event has about a thousand prices).
  const price = {
    bookmakerID: quote.bookmakerId || bookmakerID,
    odds: quote.odds,
    decimal: quote.decimal,
  } as ContractBookmakerOdds;
  if (quote.overUnder) price.overUnder = quote.overUnder;
  if (quote.spread) price.spread = quote.spread;
  price.available = quote.available;
  price.lastUpdatedAt = isoTime(quote.lastUpdatedAtMs);
  price.eventName = quote.eventName;
  if (quote.deeplink) price.deeplink = quote.deeplink;
  return price;
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

/**
 * An event's JSON in parts: the bytes before the members of its `odds` (ending in `"odds":{`),
 * each member (`"<oddID>":{...}`) in order, and the bytes after them (starting with the `}` that
 * closes `odds`). `joinedJson` makes the JSON; `PackedRendering` packs it so a side can be found.
 */
export interface EventJsonParts {
  head: Buffer;
  sides: { oddID: string; member: Buffer }[];
  tail: Buffer;
}

/** An event's JSON in the two forms the read model keeps: full, and without alternate lines (the default shape). */
export interface ContractJson {
  full: Buffer;
  /** In parts: an apply joins or packs them only for an event that changed. */
  withoutAltLines: EventJsonParts;
}

/**
 * `JSON.stringify(event)` and the same bytes with every side's `altLines` left out (what
 * `shapeEvent(event, FULL_SHAPE)` renders), each price stringified once for both: `altLines` is a
 * side's last key, so a side's full JSON is its JSON without them plus that one member. Written as
 * bytes side by side and joined once: a fully priced event is 1-2 MB of JSON, and no string of
 * that size is made (V8 keeps one in its large-object space and promotes it whole to the old
 * generation once it outlives a scavenge, as an apply's do across their packing: garbage there
 * until the next full collection).
 */
export function contractJson(event: ContractEvent): ContractJson {
  const full: Buffer[] = [];
  const sides: EventJsonParts["sides"] = [];
  for (const [oddID, side] of Object.entries(event.odds)) {
    const { altLines, ...rest } = side;
    const member = Buffer.from(sideMember(oddID, rest));
    sides.push({ oddID, member });
    // The full member is the same bytes with `altLines` added last: only their JSON is encoded, the rest copied.
    full.push(
      altLines === undefined
        ? member
        : Buffer.concat([member.subarray(0, -1), Buffer.from(`,"altLines":${JSON.stringify(altLines)}}`)]),
    );
  }
  const [head, tail] = objectJsonAround(event, "odds");
  return { full: joinObject([head, tail], full), withoutAltLines: { head, sides, tail } };
}

/** `contractJson(event).withoutAltLines` alone (the full form is at hand: a stored event being loaded). */
export function contractJsonWithoutAltLines(event: ContractEvent): EventJsonParts {
  const sides = Object.entries(event.odds).map(([oddID, { altLines: _altLines, ...rest }]) => ({
    oddID,
    member: Buffer.from(sideMember(oddID, rest)),
  }));
  const [head, tail] = objectJsonAround(event, "odds");
  return { head, sides, tail };
}

/** The JSON an event's parts make. */
export function joinedJson(parts: EventJsonParts): Buffer {
  return joinObject(
    [parts.head, parts.tail],
    parts.sides.map((side) => side.member),
  );
}

/** One member of `odds`, its side without alternate lines. */
function sideMember(oddID: string, side: Omit<ContractOdds, "altLines">): string {
  return `${JSON.stringify(oddID)}:${JSON.stringify(side)}`;
}

/**
 * `JSON.stringify(object)` split around one member's value: the JSON before it (ending in
 * `"key":{`) and after it (starting with that value's closing `}`).
 */
function objectJsonAround(object: object, key: string): [Buffer, Buffer] {
  const before: string[] = [];
  const after: string[] = [];
  let seen = false;
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined) continue;
    if (name === key) seen = true;
    else (seen ? after : before).push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  const head = `{${before.map((member) => `${member},`).join("")}${JSON.stringify(key)}:{`;
  return [Buffer.from(head), Buffer.from(`}${after.map((member) => `,${member}`).join("")}}`)];
}

/** The object's bytes with `members` (each `"name":value`) as the split member's value. */
function joinObject([head, tail]: [Buffer, Buffer], members: Buffer[]): Buffer {
  return frameItems(members, head, tail);
}
