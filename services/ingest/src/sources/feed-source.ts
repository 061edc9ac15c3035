// The upstream feed as sources deliver it, before normalisation. Tokens are the feed's own
// (upper case, as most odds feeds send them); normalisation turns them into the oddID grammar.

/** One upstream source of odds; every adapter implements this and nothing more. */
export interface FeedSource {
  readonly id: string;
  /** Higher wins when a bookmaker reaches us through two sources. */
  readonly rank: number;
  fetchSnapshot(at: Date): Promise<FeedSnapshot>;
  /**
   * The same snapshot with its events built as they are read, for sources that generate their quotes
   * (the simulated feed): a cycle then holds a few events' quotes at a time, not the whole world.
   */
  streamSnapshot?(at: Date): StreamedSnapshot;
  /**
   * Sources that can replay the past, for backfill: the snapshots of the events that kick off in the
   * request's kickoff window, observed in [from, to), oldest first. Each event's replay comes whole
   * from the one request whose window holds its kickoff, so a backfill asks window by window and
   * holds one window's snapshots at a time.
   */
  replay?(request: ReplayRequest): Promise<FeedSnapshot[]>;
  /** Final state of the events that kicked off in [from, to) and are no longer in live snapshots. */
  fetchResults?(from: Date, to: Date): Promise<FeedSnapshot>;
  /**
   * Set by sources that name teams and players instead of sharing our IDs: their events, teams and
   * players are matched to those of the ID-carrying sources before normalisation.
   */
  readonly nameMatching?: NameMatching;
}

/** One window of a backfill's replay. */
export interface ReplayRequest {
  /** Observations in [from, to). */
  from: Date;
  to: Date;
  /** Only the events that kick off in [startsFromMs, startsBeforeMs) (`Infinity`: every later one). */
  startsFromMs: number;
  startsBeforeMs: number;
  /** Events that kicked off before this may carry fewer markets (their headline moneyline). */
  sparseBefore: Date;
  /**
   * Events that kick off at or after this carry every market, observed as often as the source can
   * afford (a denser history); undefined: none.
   */
  fullSince?: Date;
}

export interface NameMatching {
  /** The same event from two sources kicks off within this of each other. */
  kickoffToleranceMs: number;
  /** The feed's name -> our ID, where normalised names do not meet (per league: "AFL/GWS Giants"). */
  teamAliases: Record<string, string>;
  playerAliases: Record<string, string>;
}

export interface FeedSnapshot {
  sourceID: string;
  leagues: FeedLeague[];
  /** Upstream entries left out (unknown_market, malformed_price, ...) or left unmatched (unmatched_team, ...), by reason. */
  tally?: Record<string, number>;
}

/** A snapshot whose events come one at a time, in ascending eventID order (as `Array.prototype.sort` orders them). */
export interface StreamedSnapshot {
  /** Every league of the snapshot, each with `events` empty. */
  snapshot: FeedSnapshot;
  events(): Iterable<{ leagueID: string; event: FeedEvent }>;
}

export interface FeedLeague {
  leagueID: string;
  sportID: string;
  sportName: string;
  sportShortName: string;
  name: string;
  shortName: string;
  /** When the source last wrote anything for this league (a quiet source stops advancing it). */
  lastWriteAt: Date;
  events: FeedEvent[];
}

/** A league as configured for a real source (the feed's leagueID, kept as it is, and display names). */
export type LeagueInfo = Omit<FeedLeague, "lastWriteAt" | "events">;

export interface FeedTeam {
  teamID: string;
  long: string;
  medium: string;
  short: string;
  primaryColor: string;
  secondaryColor: string;
  score?: number;
}

export interface FeedPlayer {
  playerID: string;
  teamID: string;
  name: string;
  firstName: string;
  lastName: string;
  position: string;
  jerseyNumber: number;
}

export type FeedEventState = "SCHEDULED" | "DELAYED" | "LIVE" | "ENDED" | "FINAL" | "CANCELLED";

export interface FeedEvent {
  eventID: string;
  type: "match" | "tournament" | "prop";
  startsAt: Date;
  state: FeedEventState;
  currentPeriod?: string;
  periodsStarted: string[];
  periodsEnded: string[];
  clock?: string;
  home: FeedTeam;
  away: FeedTeam;
  players: FeedPlayer[];
  /** Results as period -> entity (HOME, AWAY or a playerID) -> stat -> value. */
  results: Record<string, Record<string, Record<string, number>>>;
  /** When the source last corrected these results after the event had a final result; absent when never. */
  resultsCorrectedAt?: Date;
  books: FeedBook[];
}

export interface FeedBook {
  bookmaker: string;
  eventName: string;
  eventUrl: string;
  /** How a client builds a bet slip on this bookmaker. */
  betslip: { kind: "deeplink" | "copy" | "none"; urlTemplate: string };
  /** Every quote the bookmaker offers now; a quote missing here is withdrawn. */
  quotes: FeedQuote[];
}

export interface FeedQuote {
  stat: string;
  /** HOME, AWAY, ALL or a playerID. */
  entity: string;
  period: string;
  betType: string;
  side: string;
  decimal: number;
  line?: number;
  /** false for the bookmaker's alternate lines. */
  mainLine: boolean;
  layDecimal?: number;
  maxStake?: number;
  suspended: boolean;
  deeplink?: string;
}
