// Keep-last-good for real sources: what a failed or partial fetch could not fetch is served from
// the last good answer, with the time it was really written, so it goes stale truthfully and
// nothing is deleted or closed because a request failed.
import type { FeedEvent, FeedLeague, LeagueInfo } from "./feed-source";

interface Kept {
  event: FeedEvent;
  writtenAt: Date;
}

export class LastGoodEvents {
  private readonly leagues = new Map<string, Map<string, Kept>>();

  /**
   * Records one league's fetch and returns what the snapshot carries for it. A complete fetch
   * replaces the league (events the feed no longer lists have left it); a partial one updates the
   * events it got and keeps the rest.
   */
  record(league: LeagueInfo, fresh: FeedEvent[], writtenAt: Date, complete: boolean): FeedLeague[] {
    const kept = complete ? new Map<string, Kept>() : (this.leagues.get(league.leagueID) ?? new Map<string, Kept>());
    for (const event of fresh) kept.set(event.eventID, { event, writtenAt });
    this.leagues.set(league.leagueID, kept);
    const leagues = this.recall(league);
    // A league with nothing listed still reports that the source wrote for it.
    return leagues.length > 0 ? leagues : [{ ...league, lastWriteAt: writtenAt, events: [] }];
  }

  /** The league as last seen, one FeedLeague per write instant (oldest first); [] when never seen. */
  recall(league: LeagueInfo): FeedLeague[] {
    const byInstant = new Map<number, FeedEvent[]>();
    for (const { event, writtenAt } of this.leagues.get(league.leagueID)?.values() ?? []) {
      const list = byInstant.get(writtenAt.getTime()) ?? [];
      list.push(event);
      byInstant.set(writtenAt.getTime(), list);
    }
    return [...byInstant.entries()]
      .sort(([a], [b]) => a - b)
      .map(([instant, events]) => ({ ...league, lastWriteAt: new Date(instant), events }));
  }
}
