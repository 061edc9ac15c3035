// What one ingest cycle writes, in the domain's words. The write adapters map these to the
// events, history and catalogue RPC messages field for field.
import type { pricing } from "@odds/proto";

export interface BookmakerPrice {
  bookmakerID: string;
  /** American price. */
  odds: string;
  decimal: number;
  overUnder?: string;
  spread?: string;
  available: boolean;
  lastUpdatedAtMs: number;
  eventName: string;
  deeplink: string;
}

/** The price fields (consensus and fair) come from the contracts package's pricing rules. */
export interface SideOdds extends pricing.SidePriceFields {
  oddID: string;
  /** Undefined for pick-N and three-way markets. */
  opposingOddID?: string;
  marketName: string;
  statID: string;
  statEntityID: string;
  periodID: string;
  betTypeID: string;
  sideID: string;
  playerID?: string;
  started: boolean;
  ended: boolean;
  cancelled: boolean;
  scoringSupported: boolean;
  byBookmaker: Record<string, BookmakerPrice>;
  /** line -> bookmakerID -> price, for the bookmakers' alternate lines. */
  altLines: Record<string, Record<string, BookmakerPrice>>;
}

export interface TeamState {
  teamID: string;
  names: { long: string; medium: string; short: string };
  colors: { primary: string; secondary: string; primaryContrast: string; secondaryContrast: string };
  statEntityID: "home" | "away";
  score?: number;
}

export interface EventPlayerState {
  playerID: string;
  teamID: string;
  name: string;
  firstName: string;
  lastName: string;
  position: string;
  jerseyNumber?: number;
}

export interface EventState {
  eventID: string;
  sportID: string;
  leagueID: string;
  type: string;
  status: {
    started: boolean;
    ended: boolean;
    live: boolean;
    cancelled: boolean;
    delayed: boolean;
    finalized: boolean;
    completed: boolean;
    startsAtMs: number;
    oddsPresent: boolean;
    oddsAvailable: boolean;
    currentPeriodID: string;
    periodsStarted: string[];
    periodsEnded: string[];
    displayShort: string;
    displayLong: string;
  };
  info: {
    displayName: string;
    commenceTimeMs: number;
    lastUpdatedAtMs: number;
    bookmakersPresent: string[];
    sourceBookmakerCount: number;
  };
  home: TeamState;
  away: TeamState;
  players: Record<string, EventPlayerState>;
  /** periodID -> statEntityID -> statID -> value. */
  results: Record<string, Record<string, Record<string, number>>>;
  /** When the source last corrected the results (Unix milliseconds); 0 = never. */
  resultsCorrectedAtMs: number;
  odds: Record<string, SideOdds>;
  /** Sides priced before the event whose quotes had all closed by this write (backfilled finished events). */
  closedOdds?: Record<string, SideOdds>;
  links: {
    bookmakers: Record<string, string>;
    betslip: Record<string, { kind: string; urlTemplate: string }>;
  };
}

export interface QuoteObservation {
  oddID: string;
  decimalOdds: number;
  line?: number;
  isMainLine?: boolean;
  layOdds?: number;
  maxStake?: number;
  available: boolean;
}

/** Everything one bookmaker offers on one event through one source at one instant. */
export interface BookObservation {
  eventID: string;
  bookmakerID: string;
  sourceID: string;
  sourceRank: number;
  observedAtMs: number;
  quotes: QuoteObservation[];
}

export interface EventRef {
  eventID: string;
  sportID: string;
  leagueID: string;
  startsAtMs: number;
}

export interface CatalogueContent {
  sports: Array<{ sportID: string; name: string; shortName: string }>;
  leagues: Array<{ leagueID: string; sportID: string; name: string; shortName: string }>;
  teams: Array<{
    teamID: string;
    sportID: string;
    leagueID: string;
    names: TeamState["names"];
    colors: TeamState["colors"];
    statEntityID: string;
  }>;
  players: Array<EventPlayerState & { sportID: string; leagueID: string; eventIDs: string[] }>;
  stats: Array<{
    statID: string;
    levels: { all: boolean; team: boolean; player: boolean };
    displays: { short: string; long: string };
    sportIDs: string[];
  }>;
  events: Array<{
    eventID: string;
    sportID: string;
    leagueID: string;
    active: boolean;
    markets: Array<{ oddID: string; marketName: string; playerID?: string; teamID?: string; bookmakerIDs: string[] }>;
  }>;
}

/** Everything one cycle writes. */
export interface CycleContent {
  events: EventState[];
  eventRefs: EventRef[];
  observations: BookObservation[];
  catalogue: CatalogueContent;
  /** Feed quotes that did not fit the oddID grammar and were left out. */
  rejectedQuotes: number;
}
