import { randomUUID } from "node:crypto";
import type { objects } from "@odds/proto";
import stableStringify from "safe-stable-stringify";
import { ActivityLedger, normalizeEventState, sameEventState, type EventState } from "./activity";
import { deriveMarket, parseOddID, type MarketDefinition } from "./market-definition";

/** Records are the contract objects without what the caller's plan or current activity decides. */
export type SportRecord = Omit<objects.Sport, "enabled" | "activeEvents">;
export type LeagueRecord = Omit<objects.League, "enabled" | "activeEvents">;
export type TeamRecord = objects.Team;

export type PlayerRecord = objects.Player & {
  /** Sorted, unique: every event the player has been listed on. */
  eventIDs: string[];
};

export type StatRecord = Omit<objects.Stat, "isScoreStat" | "supportedSports"> & {
  /** Sorted, unique. */
  sportIDs: string[];
};

/** One ingest cycle: the catalogue entities it read and the current state of every event it carries. */
export interface CatalogueCycle {
  sports: SportRecord[];
  leagues: LeagueRecord[];
  teams: TeamRecord[];
  players: PlayerRecord[];
  stats: StatRecord[];
  events: EventState[];
}

/** What a cycle changes: only these records need writing. */
export interface CatalogueChanges {
  sports: SportRecord[];
  leagues: LeagueRecord[];
  teams: TeamRecord[];
  players: PlayerRecord[];
  stats: StatRecord[];
  markets: MarketDefinition[];
  events: EventState[];
}

/** What the store holds: market definitions are not stored, they are derived again from the events. */
export type CatalogueSnapshot = Omit<CatalogueChanges, "markets">;

/** Record kinds the store persists, each keyed by its own id. */
export type StoredKind = keyof CatalogueSnapshot;

export function countChanges(changes: CatalogueChanges): number {
  return Object.values(changes).reduce((total: number, records: unknown[]) => total + records.length, 0);
}

/**
 * The whole catalogue in memory: the records, every event's last state and the live counts.
 * Writes are planned first (pure, against the current state), persisted, then committed,
 * so memory never runs ahead of the store.
 */
export class Catalogue {
  readonly sports = new Map<string, SportRecord>();
  readonly leagues = new Map<string, LeagueRecord>();
  readonly teams = new Map<string, TeamRecord>();
  readonly players = new Map<string, PlayerRecord>();
  readonly stats = new Map<string, StatRecord>();
  readonly markets = new Map<string, MarketDefinition>();
  readonly activity = new ActivityLedger();
  private readonly events = new Map<string, EventState>();
  /** When each active event was last carried by a cycle (memory only: a restart restarts the clock). */
  private readonly lastSeenAt = new Map<string, number>();
  private readonly sorted = new Map<string, unknown[]>();
  /** Moves on with every commit that changes something: what is derived from the records is stale then. */
  private changeCount = 0;
  private readonly identity = randomUUID();

  static fromSnapshot(snapshot: CatalogueSnapshot, now: number): Catalogue {
    const catalogue = new Catalogue();
    const canonical: CatalogueChanges = {
      sports: snapshot.sports.map((sport) => mergeNamed(undefined, sport)),
      leagues: snapshot.leagues.map((league) => mergeNamed(undefined, league)),
      teams: snapshot.teams.map((team) => mergeTeam(undefined, team)),
      players: snapshot.players.map((player) => mergePlayer(undefined, player)),
      stats: snapshot.stats.map((stat) => mergeStat(undefined, stat)),
      markets: [],
      events: snapshot.events.map(normalizeEventState),
    };
    canonical.markets = catalogue.defineMarkets(canonical.events, canonical);
    catalogue.commit(canonical, now, []);
    return catalogue;
  }

  /**
   * The records a cycle changes. Replaying a cycle changes nothing. Active events no cycle has
   * carried since `expireBefore` come back as dropped out (active = false).
   */
  changesOf(cycle: CatalogueCycle, expireBefore: number): CatalogueChanges {
    const changes: CatalogueChanges = {
      sports: changed(this.sports, cycle.sports, (s) => s.sportID, mergeNamed),
      leagues: changed(this.leagues, cycle.leagues, (l) => l.leagueID, mergeNamed),
      teams: changed(this.teams, cycle.teams, (t) => t.teamID, mergeTeam),
      players: changed(this.players, cycle.players, (p) => p.playerID, mergePlayer),
      stats: changed(this.stats, cycle.stats, (s) => s.statID, mergeStat),
      markets: [],
      events: [],
    };
    const carried = new Set<string>();
    // An event without its ids cannot be counted anywhere: it is left out.
    const events = cycle.events.filter((e) => e.eventID && e.sportID && e.leagueID).map(normalizeEventState);
    changes.markets = this.defineMarkets(events, cycle);
    const defined = new Set(changes.markets.map((market) => market.oddID));
    for (const incoming of events) {
      carried.add(incoming.eventID);
      // An oddID that does not follow the grammar is not a market: it is left out of the event.
      const next = {
        ...incoming,
        markets: incoming.markets.filter((m) => defined.has(m.oddID) || this.markets.has(m.oddID)),
      };
      if (!sameEventState(this.events.get(next.eventID), next)) changes.events.push(next);
    }
    for (const [eventID, state] of this.events) {
      if (state.active && !carried.has(eventID) && (this.lastSeenAt.get(eventID) ?? 0) < expireBefore) {
        changes.events.push({ ...state, active: false });
      }
    }
    return changes;
  }

  /** Whether the store already holds this record (a new one can be inserted rather than replaced). */
  has(kind: StoredKind, id: string): boolean {
    return kind === "events" ? this.events.has(id) : this[kind].has(id);
  }

  /**
   * Definitions of the oddIDs not defined yet. The statEntityID is a player or a team when the
   * cycle or the store lists one with that id, and the stat's display name comes from the stats,
   * so a restart derives exactly the same markets.
   */
  defineMarkets(events: EventState[], listed: Pick<CatalogueCycle, "players" | "teams" | "stats">): MarketDefinition[] {
    const players = new Map(listed.players.map((player) => [player.playerID, player.name]));
    const teams = new Set(listed.teams.map((team) => team.teamID));
    const stats = new Map(listed.stats.map((stat) => [stat.statID, stat.displays.long]));
    const definitions = new Map<string, MarketDefinition>();
    for (const event of events) {
      for (const { oddID } of event.markets) {
        if (this.markets.has(oddID) || definitions.has(oddID)) continue;
        const parts = parseOddID(oddID);
        const entity = parts?.statEntityID ?? "";
        const playerName = players.get(entity) ?? this.players.get(entity)?.name;
        const statName = stats.get(parts?.statID ?? "") || this.stats.get(parts?.statID ?? "")?.displays.long;
        const definition = deriveMarket(oddID, {
          ...(statName ? { statName } : {}),
          ...(playerName !== undefined ? { playerID: entity, playerName } : {}),
          ...(teams.has(entity) || this.teams.has(entity) ? { teamID: entity } : {}),
        });
        if (definition) definitions.set(oddID, definition);
      }
    }
    return [...definitions.values()];
  }

  /** Applies planned (and persisted) changes; `carried` are the events the cycle mentioned. */
  commit(changes: CatalogueChanges, now: number, carried: Iterable<string>): void {
    for (const sport of changes.sports) this.sports.set(sport.sportID, sport);
    for (const league of changes.leagues) this.leagues.set(league.leagueID, league);
    for (const team of changes.teams) this.teams.set(team.teamID, team);
    for (const player of changes.players) this.players.set(player.playerID, player);
    for (const stat of changes.stats) this.stats.set(stat.statID, stat);
    for (const market of changes.markets) this.markets.set(market.oddID, market);
    for (const event of changes.events) {
      this.activity.replace(this.events.get(event.eventID), event);
      this.events.set(event.eventID, event);
      if (event.active) this.lastSeenAt.set(event.eventID, now);
      else this.lastSeenAt.delete(event.eventID);
    }
    for (const eventID of carried) if (this.events.get(eventID)?.active) this.lastSeenAt.set(eventID, now);
    if (countChanges(changes) > 0) {
      this.sorted.clear();
      this.changeCount++;
    }
  }

  /** Changes with every commit that changes a record, an event or a count. */
  get generation(): number {
    return this.changeCount;
  }

  /**
   * Names this catalogue's content: no other catalogue (a reload, a restart, another replica) shares its
   * identity, and its generation moves with every commit that changes it. Reads are made from the records
   * alone, so the same version and the same request make the same page.
   */
  get version(): string {
    return `${this.identity}:${this.changeCount}`;
  }

  /** A collection's records ordered by their id, cached until the next commit. */
  ordered<T>(name: "sports" | "leagues" | "teams" | "players" | "stats" | "markets", id: (record: T) => string): T[] {
    let list = this.sorted.get(name) as T[] | undefined;
    if (!list) {
      list = [...(this[name] as Map<string, T>).values()].sort((a, b) => compareIDs(id(a), id(b)));
      this.sorted.set(name, list);
    }
    return list;
  }
}

/** Ordinal comparison, so paging does not depend on the locale. */
export function compareIDs(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function changed<T>(
  current: Map<string, T>,
  incoming: T[],
  id: (record: T) => string,
  merge: (old: T | undefined, next: T) => T,
): T[] {
  const result = new Map<string, T>();
  for (const record of incoming) {
    const key = id(record);
    if (!key) continue;
    const merged = merge(result.get(key) ?? current.get(key), record);
    const before = current.get(key);
    if (before === undefined || stableStringify(before) !== stableStringify(merged)) result.set(key, merged);
    else result.delete(key);
  }
  return [...result.values()];
}

/** Later non-empty values win; a value the source stops carrying is kept. */
function keep(next: string | undefined, old: string | undefined): string {
  return next || old || "";
}

function mergeNamed<T extends SportRecord>(old: T | undefined, next: T): T {
  return { ...next, name: keep(next.name, old?.name), shortName: keep(next.shortName, old?.shortName) };
}

function mergeTeam(old: TeamRecord | undefined, next: TeamRecord): TeamRecord {
  const colors: TeamRecord["colors"] = { ...old?.colors };
  for (const [key, value] of Object.entries(next.colors) as [keyof TeamRecord["colors"], string | undefined][]) {
    if (value) colors[key] = value;
  }
  return {
    teamID: next.teamID,
    sportID: keep(next.sportID, old?.sportID),
    leagueID: keep(next.leagueID, old?.leagueID),
    names: {
      long: keep(next.names.long, old?.names.long),
      medium: keep(next.names.medium, old?.names.medium),
      short: keep(next.names.short, old?.names.short),
    },
    colors: sortKeys(colors),
    statEntityID: keep(next.statEntityID, old?.statEntityID),
  };
}

function mergePlayer(old: PlayerRecord | undefined, next: PlayerRecord): PlayerRecord {
  const merged: PlayerRecord = {
    playerID: next.playerID,
    teamID: keep(next.teamID, old?.teamID),
    sportID: keep(next.sportID, old?.sportID),
    leagueID: keep(next.leagueID, old?.leagueID),
    name: keep(next.name, old?.name),
    firstName: keep(next.firstName, old?.firstName),
    lastName: keep(next.lastName, old?.lastName),
    eventIDs: union(old?.eventIDs ?? [], next.eventIDs),
  };
  const position = next.position || old?.position;
  if (position) merged.position = position;
  const jerseyNumber = next.jerseyNumber ?? old?.jerseyNumber;
  if (jerseyNumber !== undefined) merged.jerseyNumber = jerseyNumber;
  return merged;
}

function mergeStat(old: StatRecord | undefined, next: StatRecord): StatRecord {
  return {
    statID: next.statID,
    supportedLevels: {
      all: next.supportedLevels.all || (old?.supportedLevels.all ?? false),
      team: next.supportedLevels.team || (old?.supportedLevels.team ?? false),
      player: next.supportedLevels.player || (old?.supportedLevels.player ?? false),
    },
    displays: {
      short: keep(next.displays.short, old?.displays.short),
      long: keep(next.displays.long, old?.displays.long),
    },
    sportIDs: union(old?.sportIDs ?? [], next.sportIDs),
  };
}

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b].filter((value) => value.length > 0))].sort(compareIDs);
}

function sortKeys<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareIDs(a, b))) as T;
}
