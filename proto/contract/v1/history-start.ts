// Where v1 odds history begins, per league: the contract's Versioning section.

/** v1 history is recorded from this day for every league. */
export const V1_HISTORY_START_DAY = "2026-10-08";
/** ...and from this day for leagues whose earlier recordings were converted. */
export const CONVERTED_HISTORY_START_DAY = "2025-12-22";
/** Leagues with converted earlier recordings unless configured otherwise (HISTORY_CONVERTED_LEAGUES). */
export const DEFAULT_CONVERTED_LEAGUES = ["AFL", "NRL", "EPL"];

/** The longest window one v1 history request may span. */
export const V1_HISTORY_MAX_WINDOW_MS = 24 * 3_600_000;

const startOfDay = (day: string) => Date.parse(`${day}T00:00:00Z`);

/**
 * The per-league history start setting: the one place that says from when a league's v1 history
 * is served. The catalogue shows it in /v1/leagues; the history service refuses windows before it.
 */
export class HistoryStarts {
  private readonly converted: ReadonlySet<string>;

  constructor(convertedLeagueIDs: readonly string[]) {
    this.converted = new Set(convertedLeagueIDs);
  }

  /** The first UTC day (YYYY-MM-DD) of the league's v1 history. */
  dayOf(leagueID: string): string {
    return this.converted.has(leagueID) ? CONVERTED_HISTORY_START_DAY : V1_HISTORY_START_DAY;
  }

  /** The league's history start in Unix milliseconds. */
  msOf(leagueID: string): number {
    return startOfDay(this.dayOf(leagueID));
  }
}
