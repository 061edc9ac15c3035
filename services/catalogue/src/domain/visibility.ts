/** What the caller's plan lets it read; null means everything. */
export interface PlanScope {
  sportIDs: ReadonlySet<string> | null;
  leagueIDs: ReadonlySet<string> | null;
  bookmakerIDs: ReadonlySet<string> | null;
}

/** A scope that sees nothing: used when a read arrives without a caller. */
export const NOTHING_VISIBLE: PlanScope = { sportIDs: new Set(), leagueIDs: new Set(), bookmakerIDs: new Set() };

export function sportVisible(scope: PlanScope, sportID: string): boolean {
  return scope.sportIDs === null || scope.sportIDs.has(sportID);
}

/** A league is readable when both its sport and the league itself are in the plan. */
export function leagueVisible(scope: PlanScope, leagueID: string, sportID: string): boolean {
  return sportVisible(scope, sportID) && (scope.leagueIDs === null || scope.leagueIDs.has(leagueID));
}

export function bookmakerVisible(scope: PlanScope, bookmakerID: string): boolean {
  return scope.bookmakerIDs === null || scope.bookmakerIDs.has(bookmakerID);
}
