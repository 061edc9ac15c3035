import { SharedInstances } from "@odds/platform";

/**
 * Live counts (activeEvents per sport, league and market; which bookmakers price a market
 * in a league) maintained incrementally: each write folds in only the difference between
 * an event's stored state and its incoming state, never a rescan of every event.
 */

export interface EventMarketState {
  oddID: string;
  /** Sorted, unique; shared by every market priced by the same bookmakers (never changed in place). */
  bookmakerIDs: readonly string[];
}

/**
 * One instance of each oddID and of each bookmaker list the event states hold. A full-scale world's
 * states hold ~111,000 market entries naming ~7,000 oddIDs and ~790,000 bookmaker IDs in a few dozen
 * distinct lists; decoded one instance each (from a cycle, or split from the store's entries, whose
 * slices keep the whole entry), they were half the catalogue's live heap.
 */
const sharedNames = new SharedInstances<string>(50_000);
const sharedLists = new SharedInstances<readonly string[]>(10_000);

function sharedName(name: string): string {
  return sharedNames.of(name, () => name);
}

function sharedList(sortedIDs: readonly string[]): readonly string[] {
  return sharedLists.of(sortedIDs.join(" "), () => sortedIDs.map(sharedName));
}

export interface EventState {
  eventID: string;
  sportID: string;
  leagueID: string;
  /** False once the event is finalized or has dropped out of the feed: it then counts nowhere. */
  active: boolean;
  /** Sorted by oddID, unique. */
  markets: EventMarketState[];
}

export interface MarketLeagueActivity {
  leagueID: string;
  sportID: string;
  /** Active events in this league with the market priced by at least one bookmaker. */
  activeEvents: number;
  /** bookmakerID -> active events in this league it prices the market on. */
  bookmakers: Map<string, number>;
  /** Those events and who prices the market on each, to count them for a bookmaker allow-list. */
  pricedOn: Map<string, readonly string[]>;
}

/**
 * The states `normalizeEventState` made. A cycle's events are normalised as the service decodes
 * them (so each event's decoded strings are garbage by the next) and then planned by the domain,
 * which normalises whatever it is given: a state made here is returned as it is, not sorted and
 * pooled a second time (~100 ms of one core a full-scale cycle).
 */
const normalized = new WeakSet<EventState>();

/** Canonical form of an incoming event: markets and bookmakers sorted and de-duplicated. */
export function normalizeEventState(state: EventState): EventState {
  if (normalized.has(state)) return state;
  const byOddID = new Map<string, Set<string>>();
  for (const market of state.markets) {
    const bookmakers = byOddID.get(market.oddID) ?? new Set<string>();
    for (const bookmakerID of market.bookmakerIDs) if (bookmakerID) bookmakers.add(bookmakerID);
    byOddID.set(market.oddID, bookmakers);
  }
  const canonical: EventState = {
    eventID: state.eventID,
    sportID: state.sportID,
    leagueID: state.leagueID,
    active: state.active,
    markets: [...byOddID.keys()]
      .sort()
      .map((oddID) => ({ oddID: sharedName(oddID), bookmakerIDs: sharedList([...byOddID.get(oddID)!].sort()) })),
  };
  normalized.add(canonical);
  return canonical;
}

/**
 * Whether two normalised states are the same, field by field: a cycle compares every event it
 * carries, so this runs ~750 times per cycle at full scale over ~145 markets each (a stable
 * stringify of both sides made a cycle's apply hold the catalogue's event loop for seconds).
 */
export function sameEventState(a: EventState | undefined, b: EventState): boolean {
  if (a === undefined) return false;
  if (a.eventID !== b.eventID || a.sportID !== b.sportID || a.leagueID !== b.leagueID || a.active !== b.active) {
    return false;
  }
  if (a.markets.length !== b.markets.length) return false;
  return a.markets.every((market, i) => {
    const other = b.markets[i]!;
    return (
      market.oddID === other.oddID &&
      market.bookmakerIDs.length === other.bookmakerIDs.length &&
      market.bookmakerIDs.every((bookmakerID, j) => bookmakerID === other.bookmakerIDs[j])
    );
  });
}

export class ActivityLedger {
  private readonly sports = new Map<string, number>();
  private readonly leagues = new Map<string, number>();
  private readonly markets = new Map<string, Map<string, MarketLeagueActivity>>();

  /** Moves the counts from an event's previous state to its next one. */
  replace(previous: EventState | undefined, next: EventState): void {
    if (previous) this.fold(previous, -1);
    // A listed market joins its league even unpriced or ended, so it can be listed as unsupported.
    for (const market of next.markets) this.marketLeague(market.oddID, next.leagueID, next.sportID);
    this.fold(next, +1);
  }

  sportActiveEvents(sportID: string): number {
    return this.sports.get(sportID) ?? 0;
  }

  leagueActiveEvents(leagueID: string): number {
    return this.leagues.get(leagueID) ?? 0;
  }

  /** Every league the market has been priced in, including those where it is no longer active. */
  marketLeagues(oddID: string): Iterable<MarketLeagueActivity> {
    return this.markets.get(oddID)?.values() ?? [];
  }

  private fold(state: EventState, sign: 1 | -1): void {
    if (!state.active) return;
    bump(this.sports, state.sportID, sign);
    bump(this.leagues, state.leagueID, sign);
    for (const market of state.markets) {
      if (market.bookmakerIDs.length === 0) continue;
      const activity = this.marketLeague(market.oddID, state.leagueID, state.sportID);
      activity.activeEvents += sign;
      if (sign > 0) activity.pricedOn.set(state.eventID, market.bookmakerIDs);
      else activity.pricedOn.delete(state.eventID);
      for (const bookmakerID of market.bookmakerIDs) bump(activity.bookmakers, bookmakerID, sign);
    }
  }

  private marketLeague(oddID: string, leagueID: string, sportID: string): MarketLeagueActivity {
    let leagues = this.markets.get(oddID);
    if (!leagues) this.markets.set(oddID, (leagues = new Map()));
    let activity = leagues.get(leagueID);
    if (!activity)
      leagues.set(
        leagueID,
        (activity = { leagueID, sportID, activeEvents: 0, bookmakers: new Map(), pricedOn: new Map() }),
      );
    return activity;
  }
}

function bump(counts: Map<string, number>, key: string, sign: 1 | -1): void {
  const value = (counts.get(key) ?? 0) + sign;
  if (value === 0) counts.delete(key);
  else counts.set(key, value);
}
