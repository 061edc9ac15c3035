// Cross-source identity: sources that name teams and players (The Odds API) are matched to our IDs.
// Teams: the alias table (an operator's explicit word), then the persisted catalogue's teams by
// normalised long/medium/short name, then those of the ID-carrying sources (SportsGameOdds, the
// simulation) seen by this process. Events: same league, kickoff within the source's tolerance,
// same home and away teams. Players: alias table, then the matched event's players, then the
// catalogue's players of the league, then those seen. Because the catalogue persists every ID
// written (provisional ones included), a restarted ingest gives the same names the same IDs.
import type { FeedEvent, FeedPlayer, FeedSnapshot, FeedTeam, NameMatching } from "../feed-source";

/** The teams and players our catalogue holds for a league (read from the catalogue service). */
export interface CatalogueNames {
  /** Every team and player of the league; throws when the catalogue cannot answer. */
  league(leagueID: string): Promise<{ teams: FeedTeam[]; players: FeedPlayer[] }>;
}

/** A name as compared across sources: accents, case, punctuation and club-form words dropped. */
export function normaliseName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, " ")
    .split(" ")
    .filter((word) => word.length > 0 && !CLUB_WORDS.has(word))
    .join(" ");
}

const CLUB_WORDS = new Set(["fc", "afc", "the", "club", "football", "rlfc"]);

interface KnownEvent {
  eventID: string;
  startsAtMs: number;
  home: FeedTeam;
  away: FeedTeam;
  players: FeedPlayer[];
}

interface NameIndex {
  teamsByName: Map<string, FeedTeam>;
  teamsByID: Map<string, FeedTeam>;
  playersByName: Map<string, FeedPlayer>;
  playersByID: Map<string, FeedPlayer>;
}

interface LeagueMemory extends NameIndex {
  events: Map<string, KnownEvent>;
}

function emptyIndex(): NameIndex {
  return { teamsByName: new Map(), teamsByID: new Map(), playersByName: new Map(), playersByID: new Map() };
}

/** Indexes teams and players by ID and normalised name; `replace` false keeps the first holder of a name. */
function indexNames(index: NameIndex, teams: FeedTeam[], players: FeedPlayer[], replace: boolean): void {
  const put = <T>(map: Map<string, T>, key: string, value: T) => {
    if (replace || !map.has(key)) map.set(key, value);
  };
  for (const team of teams) {
    index.teamsByID.set(team.teamID, team);
    for (const name of [team.long, team.medium, team.short])
      if (name) put(index.teamsByName, normaliseName(name), team);
  }
  for (const player of players) {
    index.playersByID.set(player.playerID, player);
    put(index.playersByName, normaliseName(player.name), player);
  }
}

/** Events that kicked off longer ago than this are forgotten. */
const FORGET_AFTER_MS = 3 * 24 * 3_600_000;

export class NameMatcher {
  private readonly leagues = new Map<string, LeagueMemory>();
  /** The catalogue's names per league, as last read (kept when a later read fails). */
  private readonly catalogued = new Map<string, NameIndex>();

  /** `catalogue`: where persisted IDs are looked up; without it only the sources seen by this process count. */
  constructor(private readonly catalogue?: CatalogueNames) {}

  /**
   * Reads the catalogue's teams and players of these leagues. A league the catalogue cannot answer
   * for keeps its last read; one never read is held back by match() (see there). Returns the
   * leagues that could not be read, with why.
   */
  async refreshCatalogue(leagueIDs: Iterable<string>): Promise<Array<{ leagueID: string; err: unknown }>> {
    const failures: Array<{ leagueID: string; err: unknown }> = [];
    if (!this.catalogue) return failures;
    for (const leagueID of new Set(leagueIDs)) {
      try {
        const { teams, players } = await this.catalogue.league(leagueID);
        const index = emptyIndex();
        indexNames(index, teams, players, false);
        this.catalogued.set(leagueID, index);
      } catch (err) {
        failures.push({ leagueID, err });
      }
    }
    return failures;
  }

  /** Remembers the teams, players and events of a source that carries our IDs (across cycles). */
  learn(snapshot: FeedSnapshot, nowMs: number): void {
    for (const league of snapshot.leagues) {
      const memory = this.memory(league.leagueID);
      for (const event of league.events) {
        indexNames(memory, [event.home, event.away], event.players, true);
        memory.events.set(event.eventID, {
          eventID: event.eventID,
          startsAtMs: event.startsAt.getTime(),
          home: event.home,
          away: event.away,
          players: event.players,
        });
      }
      for (const [id, known] of memory.events) if (known.startsAtMs < nowMs - FORGET_AFTER_MS) memory.events.delete(id);
    }
  }

  /**
   * The snapshot of a name-carrying source with its events, teams and players in our IDs where found.
   * Held back rather than written under provisional IDs that would duplicate real ones: leagues whose
   * catalogue was never read, and with `holdUnknownLeagues` (an ID-carrying source failed this cycle)
   * leagues never learned from one.
   */
  match(snapshot: FeedSnapshot, matching: NameMatching, holdUnknownLeagues = false): FeedSnapshot {
    const tally = { ...snapshot.tally };
    const count = (reason: string, n = 1) => (tally[reason] = (tally[reason] ?? 0) + n);
    const leagues = snapshot.leagues.flatMap((league) => {
      const memory = this.memory(league.leagueID);
      const catalogued = this.catalogue ? this.catalogued.get(league.leagueID) : emptyIndex();
      if (!catalogued || (holdUnknownLeagues && memory.events.size === 0)) {
        count("held_until_matched", league.events.length);
        return [];
      }
      const events = league.events.map((event) => this.matchEvent(event, memory, catalogued, matching, count));
      return [{ ...league, events }];
    });
    return { ...snapshot, leagues, tally };
  }

  private matchEvent(
    event: FeedEvent,
    memory: LeagueMemory,
    catalogued: NameIndex,
    matching: NameMatching,
    count: (reason: string) => void,
  ): FeedEvent {
    const team = (feedTeam: FeedTeam): FeedTeam => {
      const aliased = matching.teamAliases[feedTeam.long];
      const name = normaliseName(feedTeam.long);
      const found = aliased
        ? (catalogued.teamsByID.get(aliased) ?? memory.teamsByID.get(aliased))
        : (catalogued.teamsByName.get(name) ?? memory.teamsByName.get(name));
      if (found) return { ...found, score: feedTeam.score };
      if (aliased) return { ...feedTeam, teamID: aliased };
      count("unmatched_team");
      return feedTeam;
    };
    const home = team(event.home);
    const away = team(event.away);
    const startsAtMs = event.startsAt.getTime();
    let twin: KnownEvent | undefined;
    for (const known of memory.events.values()) {
      if (known.home.teamID !== home.teamID || known.away.teamID !== away.teamID) continue;
      if (Math.abs(known.startsAtMs - startsAtMs) > matching.kickoffToleranceMs) continue;
      if (!twin || Math.abs(known.startsAtMs - startsAtMs) < Math.abs(twin.startsAtMs - startsAtMs)) twin = known;
    }
    if (!twin) count("unmatched_event");

    const renamed = new Map<string, FeedPlayer>();
    for (const player of event.players) {
      const aliased = matching.playerAliases[player.name];
      const name = normaliseName(player.name);
      const found = aliased
        ? (catalogued.playersByID.get(aliased) ?? memory.playersByID.get(aliased) ?? { ...player, playerID: aliased })
        : (twin?.players.find((p) => normaliseName(p.name) === name) ??
          catalogued.playersByName.get(name) ??
          memory.playersByName.get(name));
      if (!found) count("unmatched_player");
      renamed.set(player.playerID, found ?? player);
    }
    const entity = (id: string) => renamed.get(id)?.playerID ?? id;
    return {
      ...event,
      eventID: twin?.eventID ?? event.eventID,
      startsAt: twin ? new Date(twin.startsAtMs) : event.startsAt,
      home,
      away,
      players: [...new Map([...renamed.values()].map((p) => [p.playerID, p])).values()],
      books: event.books.map((book) => ({
        ...book,
        quotes: book.quotes.map((q) => (renamed.has(q.entity) ? { ...q, entity: entity(q.entity) } : q)),
      })),
    };
  }

  private memory(leagueID: string): LeagueMemory {
    let memory = this.leagues.get(leagueID);
    if (!memory) {
      memory = { ...emptyIndex(), events: new Map() };
      this.leagues.set(leagueID, memory);
    }
    return memory;
  }
}

/**
 * Learns from every ID-carrying snapshot, then matches the name-carrying ones. `idSourceFailed`: an
 * ID-carrying source delivered nothing this cycle (see NameMatcher.match).
 */
export async function matchAcrossSources<T extends { snapshot: FeedSnapshot; matching?: NameMatching }>(
  matcher: NameMatcher,
  snapshots: T[],
  nowMs: number,
  idSourceFailed = false,
  onCatalogueFailure?: (leagueID: string, err: unknown) => void,
): Promise<T[]> {
  // Only worth learning when some source names its teams (the simulated pair needs none of it).
  if (!snapshots.some((s) => s.matching)) return snapshots;
  const named = snapshots.flatMap((s) => (s.matching ? s.snapshot.leagues.map((l) => l.leagueID) : []));
  for (const { leagueID, err } of await matcher.refreshCatalogue(named)) onCatalogueFailure?.(leagueID, err);
  for (const s of snapshots) if (!s.matching) matcher.learn(s.snapshot, nowMs);
  return snapshots.map((s) =>
    s.matching ? { ...s, snapshot: matcher.match(s.snapshot, s.matching, idSourceFailed) } : s,
  );
}
