// Cross-source identity: sources that name teams and players (The Odds API) are matched to the
// IDs of the sources that carry them (SportsGameOdds, the simulation), which feed our catalogue.
// Teams: alias table, then normalised long/medium/short names within the league. Events: same
// league, kickoff within the source's tolerance, same home and away teams. Players: alias table,
// then normalised names among the matched event's players, then the league's.
import type { FeedEvent, FeedPlayer, FeedSnapshot, FeedTeam, NameMatching } from "../feed-source";

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

interface LeagueMemory {
  teamsByName: Map<string, FeedTeam>;
  teamsByID: Map<string, FeedTeam>;
  playersByName: Map<string, FeedPlayer>;
  playersByID: Map<string, FeedPlayer>;
  events: Map<string, KnownEvent>;
}

/** Events that kicked off longer ago than this are forgotten. */
const FORGET_AFTER_MS = 3 * 24 * 3_600_000;

export class NameMatcher {
  private readonly leagues = new Map<string, LeagueMemory>();

  /** Remembers the teams, players and events of a source that carries our IDs (across cycles). */
  learn(snapshot: FeedSnapshot, nowMs: number): void {
    for (const league of snapshot.leagues) {
      const memory = this.memory(league.leagueID);
      for (const event of league.events) {
        for (const team of [event.home, event.away]) {
          memory.teamsByID.set(team.teamID, team);
          for (const name of [team.long, team.medium, team.short]) {
            if (name) memory.teamsByName.set(normaliseName(name), team);
          }
        }
        for (const player of event.players) {
          memory.playersByID.set(player.playerID, player);
          memory.playersByName.set(normaliseName(player.name), player);
        }
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
   * With `holdUnknownLeagues` (an ID-carrying source failed this cycle), leagues never learned yet are
   * held back rather than written under provisional IDs that would duplicate the real events.
   */
  match(snapshot: FeedSnapshot, matching: NameMatching, holdUnknownLeagues = false): FeedSnapshot {
    const tally = { ...snapshot.tally };
    const count = (reason: string, n = 1) => (tally[reason] = (tally[reason] ?? 0) + n);
    const leagues = snapshot.leagues.flatMap((league) => {
      const memory = this.memory(league.leagueID);
      if (holdUnknownLeagues && memory.events.size === 0) {
        count("held_until_matched", league.events.length);
        return [];
      }
      const events = league.events.map((event) => this.matchEvent(event, memory, matching, count));
      return [{ ...league, events }];
    });
    return { ...snapshot, leagues, tally };
  }

  private matchEvent(
    event: FeedEvent,
    memory: LeagueMemory,
    matching: NameMatching,
    count: (reason: string) => void,
  ): FeedEvent {
    const team = (feedTeam: FeedTeam): FeedTeam => {
      const aliased = matching.teamAliases[feedTeam.long];
      const found = aliased ? memory.teamsByID.get(aliased) : memory.teamsByName.get(normaliseName(feedTeam.long));
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
      const found = aliased
        ? (memory.playersByID.get(aliased) ?? { ...player, playerID: aliased })
        : (twin?.players.find((p) => normaliseName(p.name) === normaliseName(player.name)) ??
          memory.playersByName.get(normaliseName(player.name)));
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
      memory = {
        teamsByName: new Map(),
        teamsByID: new Map(),
        playersByName: new Map(),
        playersByID: new Map(),
        events: new Map(),
      };
      this.leagues.set(leagueID, memory);
    }
    return memory;
  }
}

/**
 * Learns from every ID-carrying snapshot, then matches the name-carrying ones. `idSourceFailed`: an
 * ID-carrying source delivered nothing this cycle (see NameMatcher.match).
 */
export function matchAcrossSources<T extends { snapshot: FeedSnapshot; matching?: NameMatching }>(
  matcher: NameMatcher,
  snapshots: T[],
  nowMs: number,
  idSourceFailed = false,
): T[] {
  // Only worth learning when some source names its teams (the simulated pair needs none of it).
  if (!snapshots.some((s) => s.matching)) return snapshots;
  for (const s of snapshots) if (!s.matching) matcher.learn(s.snapshot, nowMs);
  return snapshots.map((s) =>
    s.matching ? { ...s, snapshot: matcher.match(s.snapshot, s.matching, idSourceFailed) } : s,
  );
}
