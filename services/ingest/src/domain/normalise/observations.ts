// History's view of a snapshot on its own: the backfill replays thousands of snapshots and
// needs only the raw per-bookmaker observations, without pricing events.
import type { BookObservation } from "../model";
import { observeBook, type RankedSnapshot } from "./sources";

export function observeSnapshot(source: RankedSnapshot): { observations: BookObservation[]; rejectedQuotes: number } {
  const observations: BookObservation[] = [];
  let rejectedQuotes = 0;
  for (const league of source.snapshot.leagues) {
    for (const event of league.events) {
      for (const book of event.books) {
        const observed = observeBook(source, league, event.eventID, book);
        observations.push(observed.observation);
        rejectedQuotes += observed.rejectedQuotes;
      }
    }
  }
  return { observations, rejectedQuotes };
}
