// What a caller's plan lets it see (the contract's plan rule), read from the Caller the edge resolves once per request.
import type { Caller } from "../gen/odds/common/v1/caller";

/** The caller's visibility; null means everything. */
export interface PlanScope {
  sportIDs: ReadonlySet<string> | null;
  leagueIDs: ReadonlySet<string> | null;
  bookmakerIDs: ReadonlySet<string> | null;
  /** Whether fairOdds, fairSpread and fairOverUnder are shown. */
  fairOdds: boolean;
}

/** A scope that sees nothing: what a read without a caller gets, rather than everything. */
export const NOTHING_VISIBLE: PlanScope = {
  sportIDs: new Set(),
  leagueIDs: new Set(),
  bookmakerIDs: new Set(),
  fairOdds: false,
};

export function planScopeOf(caller: Caller | undefined): PlanScope {
  if (!caller) return NOTHING_VISIBLE;
  return {
    sportIDs: caller.allSports ? null : new Set(caller.sportIds),
    leagueIDs: caller.allLeagues ? null : new Set(caller.leagueIds),
    bookmakerIDs: caller.allBookmakers ? null : new Set(caller.bookmakerIds),
    fairOdds: caller.fairOdds,
  };
}

export function sportVisible(scope: PlanScope, sportID: string): boolean {
  return scope.sportIDs === null || scope.sportIDs.has(sportID);
}

/** A league is visible when both its sport and the league itself are in the plan. Applies to ID lookups too. */
export function leagueVisible(scope: PlanScope, leagueID: string, sportID: string): boolean {
  return sportVisible(scope, sportID) && (scope.leagueIDs === null || scope.leagueIDs.has(leagueID));
}

export function bookmakerVisible(scope: PlanScope, bookmakerID: string): boolean {
  return scope.bookmakerIDs === null || scope.bookmakerIDs.has(bookmakerID);
}
