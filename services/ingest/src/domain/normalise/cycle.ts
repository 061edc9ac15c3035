// Turns the snapshots of every source into one cycle: events with consensus and fair prices,
// the raw per-bookmaker observations for history, and the catalogue.
import type { FeedLeague } from "../../sources/feed-source";
import type { CycleContent } from "../model";
import { buildCatalogue } from "./catalogue";
import { buildEvent, type NormaliseOptions } from "./event";
import { byRank, chooseBooks, type EventFromSource, type RankedSnapshot } from "./sources";

/** The snapshots regrouped: each event with every source carrying it, each league with its latest write. */
interface SnapshotIndex {
  byEvent: Map<string, EventFromSource[]>;
  leagues: Map<string, FeedLeague>;
  leagueWrites: Map<string, number>;
}

export function normaliseCycle(snapshots: RankedSnapshot[], options: NormaliseOptions): CycleContent {
  const index = indexSnapshots(snapshots);
  const content: CycleContent = {
    events: [],
    eventRefs: [],
    observations: [],
    catalogue: { sports: [], leagues: [], teams: [], players: [], stats: [], events: [] },
    rejectedQuotes: 0,
  };
  for (const eventID of [...index.byEvent.keys()].sort()) {
    const sources = byRank(index.byEvent.get(eventID) ?? []);
    const primary = sources[0];
    if (!primary) continue;
    const books = chooseBooks(sources);
    for (const observation of books.observations) content.observations.push(observation);
    content.rejectedQuotes += books.rejectedQuotes;
    const lastUpdatedAtMs = index.leagueWrites.get(primary.league.leagueID) ?? primary.league.lastWriteAt.getTime();
    const built = buildEvent(primary, books, lastUpdatedAtMs, options);
    content.events.push(built);
    content.eventRefs.push({
      eventID,
      sportID: built.sportID,
      leagueID: built.leagueID,
      startsAtMs: built.status.startsAtMs,
    });
  }
  content.catalogue = buildCatalogue([...index.leagues.values()], content.events);
  return content;
}

function indexSnapshots(snapshots: RankedSnapshot[]): SnapshotIndex {
  const index: SnapshotIndex = { byEvent: new Map(), leagues: new Map(), leagueWrites: new Map() };
  for (const { sourceID, rank, snapshot } of snapshots) {
    for (const league of snapshot.leagues) {
      index.leagues.set(league.leagueID, league);
      const lastWriteMs = league.lastWriteAt.getTime();
      index.leagueWrites.set(league.leagueID, Math.max(index.leagueWrites.get(league.leagueID) ?? 0, lastWriteMs));
      for (const event of league.events) {
        const list = index.byEvent.get(event.eventID) ?? [];
        list.push({ sourceID, rank, league, event });
        index.byEvent.set(event.eventID, list);
      }
    }
  }
  return index;
}
