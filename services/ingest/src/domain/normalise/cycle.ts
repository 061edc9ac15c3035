// Turns the snapshots of every source into one cycle: events with consensus and fair prices,
// the raw per-bookmaker observations for history, and the catalogue. A cycle is read event by
// event, in eventID order across sources, so it can be written while it is built.
import type { FeedLeague, FeedSnapshot, StreamedSnapshot } from "../../sources/feed-source";
import type { BookObservation, CycleContent, EventRef, EventState } from "../model";
import { CatalogueBuilder } from "./catalogue";
import { buildEvent, type NormaliseOptions } from "./event";
import { byRank, chooseBooks, type EventFromSource, type RankedSnapshot } from "./sources";

/** One source's snapshot, read event by event. */
export interface RankedStream {
  sourceID: string;
  rank: number;
  stream: StreamedSnapshot;
}

/** The sources of a cycle merged: each league with its latest write, each event with every source carrying it. */
export interface CycleEvents {
  /** leagueID -> the league as the last source listing it names it. */
  leagues: Map<string, FeedLeague>;
  /** leagueID -> the latest write of any source to it (Unix ms). */
  leagueWrites: Map<string, number>;
  /** Each event with every source carrying it, in ascending eventID order. */
  events: Iterable<EventFromSource[]>;
}

/** One event of a cycle, normalised and priced, with what history records of it. */
export interface NormalisedEvent {
  event: EventState;
  ref: EventRef;
  observations: BookObservation[];
  rejectedQuotes: number;
}

/** A whole snapshot as a stream (a source that fetches it whole holds it whole anyway). */
export function streamOf(snapshot: FeedSnapshot): StreamedSnapshot {
  const events = snapshot.leagues
    .flatMap((league) => league.events.map((event) => ({ leagueID: league.leagueID, event })))
    .sort((a, b) => (a.event.eventID < b.event.eventID ? -1 : a.event.eventID > b.event.eventID ? 1 : 0));
  return {
    snapshot: { ...snapshot, leagues: snapshot.leagues.map((l) => ({ ...l, events: [] })) },
    events: () => events,
  };
}

export function mergeSources(sources: RankedStream[]): CycleEvents {
  const leagues = new Map<string, FeedLeague>();
  const leagueWrites = new Map<string, number>();
  for (const { stream } of sources) {
    for (const league of stream.snapshot.leagues) {
      leagues.set(league.leagueID, league);
      const lastWriteMs = league.lastWriteAt.getTime();
      leagueWrites.set(league.leagueID, Math.max(leagueWrites.get(league.leagueID) ?? 0, lastWriteMs));
    }
  }
  return { leagues, leagueWrites, events: { [Symbol.iterator]: () => mergedEvents(sources) } };
}

/** A k-way merge of the sources' event streams by eventID. */
function* mergedEvents(sources: RankedStream[]): Generator<EventFromSource[]> {
  const cursors = sources.map(({ sourceID, rank, stream }) => {
    const own = new Map(stream.snapshot.leagues.map((league) => [league.leagueID, league]));
    const iterator = stream.events()[Symbol.iterator]();
    const read = (): EventFromSource | undefined => {
      for (;;) {
        const next = iterator.next();
        if (next.done) return undefined;
        const league = own.get(next.value.leagueID);
        if (league) return { sourceID, rank, league, event: next.value.event };
      }
    };
    return { read, head: read() };
  });
  for (;;) {
    let eventID: string | undefined;
    for (const { head } of cursors)
      if (head && (eventID === undefined || head.event.eventID < eventID)) eventID = head.event.eventID;
    if (eventID === undefined) return;
    const group: EventFromSource[] = [];
    for (const cursor of cursors) {
      while (cursor.head && cursor.head.event.eventID === eventID) {
        group.push(cursor.head);
        cursor.head = cursor.read();
      }
    }
    yield group;
  }
}

export function normaliseEvent(
  sources: EventFromSource[],
  leagueWrites: Map<string, number>,
  options: NormaliseOptions,
): NormalisedEvent | undefined {
  const ranked = byRank(sources);
  const primary = ranked[0];
  if (!primary) return undefined;
  const books = chooseBooks(ranked);
  const lastUpdatedAtMs = leagueWrites.get(primary.league.leagueID) ?? primary.league.lastWriteAt.getTime();
  const event = buildEvent(primary, books, lastUpdatedAtMs, options);
  return {
    event,
    ref: {
      eventID: event.eventID,
      sportID: event.sportID,
      leagueID: event.leagueID,
      startsAtMs: event.status.startsAtMs,
    },
    observations: books.observations,
    rejectedQuotes: books.rejectedQuotes,
  };
}

/** A whole cycle at once (the backfill, tests): the streamed steps, collected. */
export function normaliseCycle(snapshots: RankedSnapshot[], options: NormaliseOptions): CycleContent {
  return collectCycle(
    mergeSources(snapshots.map(({ sourceID, rank, snapshot }) => ({ sourceID, rank, stream: streamOf(snapshot) }))),
    options,
  );
}

export function collectCycle(cycle: CycleEvents, options: NormaliseOptions): CycleContent {
  const content: CycleContent = {
    events: [],
    eventRefs: [],
    observations: [],
    catalogue: { sports: [], leagues: [], teams: [], players: [], stats: [], events: [] },
    rejectedQuotes: 0,
  };
  const catalogue = new CatalogueBuilder();
  for (const sources of cycle.events) {
    const normalised = normaliseEvent(sources, cycle.leagueWrites, options);
    if (!normalised) continue;
    for (const observation of normalised.observations) content.observations.push(observation);
    content.rejectedQuotes += normalised.rejectedQuotes;
    content.events.push(normalised.event);
    content.eventRefs.push(normalised.ref);
    catalogue.add(normalised.event);
  }
  content.catalogue = catalogue.build([...cycle.leagues.values()]);
  return content;
}
