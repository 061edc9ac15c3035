// The catalogue a cycle carries: sports and leagues from the feed, teams, players, stats and
// markets from the events it priced.
import { oddId } from "@odds/proto";
import type { FeedLeague } from "../../sources/feed-source";
import { statName } from "../market-names";
import type { CatalogueContent, EventState } from "../model";

type StatLevels = CatalogueContent["stats"][number]["levels"];

const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));

/** The catalogue gathered event by event (a cycle is built and written one event at a time). */
export class CatalogueBuilder {
  private readonly teams = new Map<string, CatalogueContent["teams"][number]>();
  private readonly players = new Map<string, CatalogueContent["players"][number]>();
  /** Every stat the events carry in results or odds, with the entity classes it appears at. */
  private readonly stats = new Map<string, { levels: StatLevels; sportIDs: Set<string> }>();
  private readonly events: CatalogueContent["events"] = [];

  add(event: EventState): void {
    for (const team of [event.home, event.away]) {
      this.teams.set(team.teamID, {
        teamID: team.teamID,
        sportID: event.sportID,
        leagueID: event.leagueID,
        names: team.names,
        colors: team.colors,
        statEntityID: team.statEntityID,
      });
    }
    for (const player of Object.values(event.players)) {
      const known = this.players.get(player.playerID);
      if (known) known.eventIDs.push(event.eventID);
      else
        this.players.set(player.playerID, {
          ...player,
          sportID: event.sportID,
          leagueID: event.leagueID,
          eventIDs: [event.eventID],
        });
    }
    for (const entities of Object.values(event.results)) {
      for (const [entity, values] of Object.entries(entities)) {
        for (const statID of Object.keys(values)) this.noteStat(statID, entity, event.sportID);
      }
    }
    for (const side of Object.values(event.odds)) this.noteStat(side.statID, side.statEntityID, event.sportID);
    this.events.push(catalogueEvent(event));
  }

  build(leagues: FeedLeague[]): CatalogueContent {
    return {
      ...sportsAndLeagues(leagues),
      teams: [...this.teams.values()].sort(byKey((t) => t.teamID)),
      players: [...this.players.values()].sort(byKey((p) => p.playerID)),
      stats: [...this.stats.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([statID, stat]) => ({
          statID,
          levels: stat.levels,
          displays: statName(statID),
          sportIDs: [...stat.sportIDs].sort(),
        })),
      events: this.events,
    };
  }

  private noteStat(statID: string, entity: string, sportID: string): void {
    const stat = this.stats.get(statID) ?? { levels: { all: false, team: false, player: false }, sportIDs: new Set() };
    stat.levels[entityLevel(entity)] = true;
    stat.sportIDs.add(sportID);
    this.stats.set(statID, stat);
  }
}

function sportsAndLeagues(feedLeagues: FeedLeague[]): Pick<CatalogueContent, "sports" | "leagues"> {
  const sports = new Map<string, CatalogueContent["sports"][number]>();
  const leagues: CatalogueContent["leagues"] = [];
  for (const league of [...feedLeagues].sort(byKey((l) => l.leagueID))) {
    sports.set(league.sportID, { sportID: league.sportID, name: league.sportName, shortName: league.sportShortName });
    leagues.push({
      leagueID: league.leagueID,
      sportID: league.sportID,
      name: league.name,
      shortName: league.shortName,
    });
  }
  return { sports: [...sports.values()].sort(byKey((s) => s.sportID)), leagues };
}

function entityLevel(statEntityID: string): keyof StatLevels {
  if (statEntityID === "all") return "all";
  if (statEntityID === "home" || statEntityID === "away" || !oddId.isPlayerEntity(statEntityID)) return "team";
  return "player";
}

function catalogueEvent(event: EventState): CatalogueContent["events"][number] {
  return {
    eventID: event.eventID,
    sportID: event.sportID,
    leagueID: event.leagueID,
    active: !event.status.ended && !event.status.cancelled,
    markets: Object.values(event.odds).map((side) => ({
      oddID: side.oddID,
      marketName: side.marketName,
      playerID: side.playerID,
      bookmakerIDs: Object.keys(side.byBookmaker).sort(),
    })),
  };
}
