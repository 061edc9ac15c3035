// The simulated upstream source: the local default and the test data. The feed at an instant is a
// pure function of (seed, instant): restarts, replays and backfill all see the same prices.
import type {
  FeedBook,
  FeedEvent,
  FeedLeague,
  FeedQuote,
  FeedSnapshot,
  FeedSource,
  ReplayRequest,
  StreamedSnapshot,
} from "../feed-source";
import { alternateLines } from "./alternate-lines";
import { COMPETITOR_SPORTS } from "./competitors";
import { BOOKMAKERS, layPrice, onLadder, overroundFor, type BookmakerProfile } from "./bookmakers";
import { LEAGUES, SPORTS, type FixtureLeague } from "./fixtures";
import { endMs, matchStateAt, playerIDIn, type MatchPhase } from "./match";
import { marketModels, type MarketGroup, type MarketModel, type SideProbability } from "./markets";
import { fnvState, hash32, hash32From, unit, unitOf } from "./random";
import { eventsBetween, slug, teamID, type ScheduledEvent } from "./schedule";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Bookmakers reprice on a two-minute grid, like the upstream refresh. */
const SLOT_MS = 2 * MINUTE_MS;
/** Every bookmaker reprices at least every six hours. */
const FORCED_MOVE_SLOTS = 180;
const CARRY_PAST_MS = 48 * HOUR_MS;
const DAY_MS = 24 * HOUR_MS;
const DEFAULT_HORIZON_DAYS = 7;
/**
 * Looks of an event replayed with every market: spaced so most of its prices moved between two
 * (books reprice every few hours far out, every few minutes near the off and in play), so each look
 * yields ticks rather than repeats; then after the end.
 */
const FULL_LOOKS = {
  beforeKickoffMs: [96, 72, 48, 36, 24, 12, 6, 3, 1, 0.5, 0.2, 0.05].map((hours) => hours * HOUR_MS),
  liveEveryMs: 10 * MINUTE_MS,
};

/** Which markets a snapshot carries: everything (live capture) or a sparse subset (backfill). */
export type SnapshotDetail = "full" | "main" | "moneyline";

export interface SimulatedSourceConfig {
  id: string;
  rank: number;
  seed: string;
  /** Bookmakers this source delivers. */
  bookmakers: string[];
  /** How far behind the bookmakers' own prices this source runs. */
  lagSeconds: number;
  /** Leagues this source stopped writing at `quietSince`. */
  quietLeagues: string[];
  quietSince?: Date;
  /** How far ahead events are listed (days); 7 by default. */
  horizonDays?: number;
  /** Open every market at least this long before kickoff (days): the benchmark's full-depth world. */
  marketsOpenDays?: number;
}

const SPORT_PATHS: Record<string, string> = {
  AUSSIE_RULES: "australian-rules",
  RUGBY_LEAGUE: "rugby-league",
  SOCCER: "soccer",
  CRICKET: "cricket",
  ...Object.fromEntries(COMPETITOR_SPORTS.map((s) => [s.sport.sportID, s.urlPath])),
};

export class SimulatedSource implements FeedSource {
  readonly id: string;
  readonly rank: number;
  private readonly books: BookmakerProfile[];
  private readonly carryAheadMs: number;
  private readonly opensAtLeastMs: number;

  constructor(private readonly config: SimulatedSourceConfig) {
    this.id = config.id;
    this.rank = config.rank;
    this.books = BOOKMAKERS.filter((b) => config.bookmakers.includes(b.bookmakerID));
    this.carryAheadMs = (config.horizonDays ?? DEFAULT_HORIZON_DAYS) * DAY_MS;
    this.opensAtLeastMs = (config.marketsOpenDays ?? 0) * DAY_MS;
    const unknown = config.bookmakers.filter((id) => !BOOKMAKERS.some((b) => b.bookmakerID === id));
    if (unknown.length > 0) throw new Error(`source ${config.id}: unknown simulated bookmakers ${unknown.join(", ")}`);
  }

  fetchSnapshot(at: Date): Promise<FeedSnapshot> {
    const leagues = this.liveSchedule(at.getTime()).map(({ league, writeMs, events }) =>
      this.feedLeague(
        league,
        writeMs,
        events.map((event) => this.feedEvent(event, writeMs, "full")),
      ),
    );
    return Promise.resolve({ sourceID: this.id, leagues });
  }

  /** The live snapshot with each event generated as it is read (the schedule itself is small). */
  streamSnapshot(at: Date): StreamedSnapshot {
    const schedule = this.liveSchedule(at.getTime());
    const ordered = schedule
      .flatMap(({ league, writeMs, events }) => events.map((event) => ({ leagueID: league.leagueID, writeMs, event })))
      .sort((a, b) => (a.event.eventID < b.event.eventID ? -1 : a.event.eventID > b.event.eventID ? 1 : 0));
    const feedEvent = (event: ScheduledEvent, writeMs: number) => this.feedEvent(event, writeMs, "full");
    return {
      snapshot: {
        sourceID: this.id,
        leagues: schedule.map(({ league, writeMs }) => this.feedLeague(league, writeMs, [])),
      },
      *events() {
        for (const { leagueID, writeMs, event } of ordered) yield { leagueID, event: feedEvent(event, writeMs) };
      },
    };
  }

  /** Each league's last write at `atMs` and the events a live snapshot then carries. */
  private liveSchedule(atMs: number): Array<{ league: FixtureLeague; writeMs: number; events: ScheduledEvent[] }> {
    return LEAGUES.map((league) => {
      const writeMs = this.lastWriteMs(league, atMs);
      return {
        league,
        writeMs,
        events: eventsBetween(this.config.seed, league, writeMs - CARRY_PAST_MS, writeMs + this.carryAheadMs),
      };
    });
  }

  /**
   * Snapshots to backfill [from, to) with, oldest first, of the events that kick off in the
   * request's window: each observed when its markets open, twice just before kickoff, and after the
   * end (every quote withdrawn). Events older than `sparseBefore` carry only moneylines, the rest
   * their main markets; events from `fullSince` on carry every market and are observed as
   * `FULL_LOOKS` says (a capture's depth, without its every-cycle cost).
   */
  replay(request: ReplayRequest): Promise<FeedSnapshot[]> {
    const fromMs = request.from.getTime();
    const toMs = request.to.getTime();
    const startsFromMs = Math.max(fromMs, request.startsFromMs);
    const startsBeforeMs = Math.min(toMs + this.carryAheadMs, request.startsBeforeMs);
    const observations = new Map<number, Array<{ event: ScheduledEvent; detail: SnapshotDetail }>>();
    for (const league of LEAGUES) {
      if (startsFromMs >= startsBeforeMs) break;
      for (const event of eventsBetween(this.config.seed, league, startsFromMs, startsBeforeMs)) {
        const detail = this.replayDetail(event, request);
        for (const instant of this.replayInstants(event, detail)) {
          if (instant < fromMs || instant >= toMs || instant >= this.lastWriteMs(league, toMs)) continue;
          const list = observations.get(instant) ?? [];
          list.push({ event, detail });
          observations.set(instant, list);
        }
      }
    }
    const instants = [...observations.keys()].sort((a, b) => a - b);
    return Promise.resolve(
      instants.map((instant) => {
        const entries = observations.get(instant) ?? [];
        const leagues = LEAGUES.map((league) =>
          this.feedLeague(
            league,
            instant,
            entries.filter((e) => e.event.league === league).map((e) => this.feedEvent(e.event, instant, e.detail)),
          ),
        ).filter((league) => league.events.length > 0);
        return { sourceID: this.id, leagues };
      }),
    );
  }

  private replayDetail(event: ScheduledEvent, request: ReplayRequest): SnapshotDetail {
    if (request.fullSince && event.startsAtMs >= request.fullSince.getTime()) return "full";
    return event.startsAtMs < request.sparseBefore.getTime() ? "moneyline" : "main";
  }

  /** When the replay observes an event: old events at the open, just before kickoff and after the end. */
  private replayInstants(event: ScheduledEvent, detail: SnapshotDetail): number[] {
    const end = endMs(this.config.seed, event) + 5 * MINUTE_MS;
    const kickoff = event.startsAtMs;
    if (detail === "moneyline") return [kickoff - 96 * HOUR_MS, kickoff - 3 * MINUTE_MS, end];
    // Recent ones also two late looks (moves and limit changes).
    if (detail === "main") return [kickoff - 96 * HOUR_MS, kickoff - 12 * MINUTE_MS, kickoff - 3 * MINUTE_MS, end];
    const live: number[] = [];
    for (let at = kickoff + FULL_LOOKS.liveEveryMs; at < end - 5 * MINUTE_MS; at += FULL_LOOKS.liveEveryMs)
      live.push(at);
    return [...FULL_LOOKS.beforeKickoffMs.map((before) => kickoff - before), ...live, end];
  }

  fetchResults(from: Date, to: Date): Promise<FeedSnapshot> {
    const leagues = LEAGUES.map((league) => {
      // Events still inside the live snapshots' window are written by the live cycles instead.
      const writeMs = this.lastWriteMs(league, to.getTime());
      const events = eventsBetween(this.config.seed, league, from.getTime(), writeMs - CARRY_PAST_MS);
      return this.feedLeague(
        league,
        writeMs,
        events.map((event) => this.feedEvent(event, writeMs, "moneyline")),
      );
    });
    return Promise.resolve({ sourceID: this.id, leagues });
  }

  private lastWriteMs(league: FixtureLeague, atMs: number): number {
    const quietSince = this.config.quietSince?.getTime();
    if (quietSince !== undefined && this.config.quietLeagues.includes(league.leagueID))
      return Math.min(atMs, quietSince);
    return atMs;
  }

  private feedLeague(league: FixtureLeague, writeMs: number, events: FeedEvent[]): FeedLeague {
    const sport = SPORTS.find((s) => s.sportID === league.sportID);
    return {
      leagueID: league.leagueID,
      sportID: league.sportID,
      sportName: sport?.name ?? league.sportID,
      sportShortName: sport?.shortName ?? league.sportID,
      name: league.name,
      shortName: league.shortName,
      lastWriteAt: new Date(writeMs),
      events,
    };
  }

  private feedEvent(event: ScheduledEvent, atMs: number, detail: SnapshotDetail): FeedEvent {
    const seed = this.config.seed;
    const state = matchStateAt(seed, event, atMs);
    const { league } = event;
    const team = (side: "home" | "away") => {
      const fixture = side === "home" ? event.home : event.away;
      return {
        teamID: teamID(fixture, league),
        long: fixture.long,
        medium: fixture.medium,
        short: fixture.short,
        primaryColor: fixture.colors[0],
        secondaryColor: fixture.colors[1],
        score: side === "home" ? state.homeScore : state.awayScore,
      };
    };
    const home = team("home");
    const away = team("away");
    const players = [
      ...event.home.players.map((p) => ({ player: p, teamID: home.teamID })),
      ...event.away.players.map((p) => ({ player: p, teamID: away.teamID })),
    ].map(({ player, teamID: playerTeam }) => {
      const [firstName = player.name, ...rest] = player.name.split(" ");
      return {
        playerID: playerIDIn(league.leagueID, player),
        teamID: playerTeam,
        name: player.name,
        firstName,
        lastName: rest.join(" ") || firstName,
        position: player.position,
        jerseyNumber: player.jerseyNumber,
      };
    });
    // Every book of the event prices the same market models at a move instant: built once for all of them.
    const models = new EventModels(seed, event, detail !== "full");
    const books = this.books
      .filter((b) => !b.skipsLeagues.includes(league.leagueID))
      .map((b) => this.feedBook(b, event, atMs - this.config.lagSeconds * 1000, detail, models));
    return {
      eventID: event.eventID,
      type: "match",
      startsAt: new Date(event.startsAtMs),
      state: FEED_STATES[state.phase],
      currentPeriod: state.currentPeriodID?.toUpperCase(),
      periodsStarted: state.periodsStarted.map((p) => p.toUpperCase()),
      periodsEnded: state.periodsEnded.map((p) => p.toUpperCase()),
      home,
      away,
      players,
      results: Object.fromEntries(
        Object.entries(state.results).map(([period, entities]) => [period.toUpperCase(), entities]),
      ),
      ...(state.resultsCorrectedAtMs !== undefined ? { resultsCorrectedAt: new Date(state.resultsCorrectedAtMs) } : {}),
      books,
    };
  }

  private feedBook(
    book: BookmakerProfile,
    event: ScheduledEvent,
    atMs: number,
    detail: SnapshotDetail,
    models: EventModels,
  ): FeedBook {
    const eventNumber = 9_000_000 + (hash32(`${book.bookmakerID}|${event.eventID}`) % 999_999);
    const sportPath = SPORT_PATHS[event.league.sportID];
    const eventUrl = `${book.site}/${sportPath}/${event.league.prefix}/${slug(event.home.medium).replace(/_/g, "-")}-v-${slug(event.away.medium).replace(/_/g, "-")}-${eventNumber}`;
    const eventName =
      book.eventNameStyle === "long"
        ? `${event.home.long} vs ${event.away.long}`
        : `${event.home.medium} ${book.eventNameStyle} ${event.away.medium}`;
    return {
      bookmaker: book.bookmakerID,
      eventName,
      eventUrl,
      betslip: book.betslip,
      quotes: this.quotes(book, event, atMs, detail, eventUrl, models),
    };
  }

  private quotes(
    book: BookmakerProfile,
    event: ScheduledEvent,
    atMs: number,
    detail: SnapshotDetail,
    eventUrl: string,
    models: EventModels,
  ): FeedQuote[] {
    const seed = this.config.seed;
    const phase = matchStateAt(seed, event, atMs).phase;
    if (phase !== "scheduled" && phase !== "delayed" && phase !== "live") return [];
    const quotes: FeedQuote[] = [];
    const moves = new Map<MarketGroup, number>();
    const deeplinkPrefix = `${eventUrl}?${book.deeplinkParam}=`;
    // selectionID = hash32(book|event|market|side|line): the prefix is hashed once per book and market.
    const bookSelection = fnvState(`${book.bookmakerID}|${event.eventID}|`);
    for (const market of models.at(atMs).values()) {
      if (!this.offers(book, event, market, atMs, phase, detail)) continue;
      let moveMs = moves.get(market.group);
      if (moveMs === undefined) {
        moveMs = this.lastMoveMs(book, event, market.group, atMs, phase);
        moves.set(market.group, moveMs);
      }
      const priced = models.at(moveMs).get(market.key) ?? market;
      const suspended =
        unit(seed, "suspend", book.bookmakerID, event.eventID, market.group, Math.floor(atMs / SLOT_MS)) <
        (phase === "live" ? 0.08 : 0.01);
      const marketSelection = fnvState(`${market.key}|`, bookSelection);
      // A side's bias and stake do not depend on the line: drawn once per side for all of the market's lines.
      const biases = new Map<string, number>();
      const biasOf = (side: string) => {
        let bias = biases.get(side);
        if (bias === undefined) {
          bias = unit(seed, "bias", book.bookmakerID, event.eventID, market.key, side, moveMs);
          biases.set(side, bias);
        }
        return bias;
      };
      const stakes = new Map<string, number>();
      const lines = this.linesFor(book, event, priced, moveMs, detail);
      for (const { line, mainLine } of lines) {
        const sides = this.priceSides(book, priced, line, biasOf);
        for (const side of sides) {
          const selectionID = hash32From(marketSelection, `${side.side}|${line ?? ""}`);
          const quote: FeedQuote = {
            stat: market.stat,
            entity: side.entity,
            period: market.period,
            betType: market.betType,
            side: side.side,
            decimal: side.decimal,
            line: side.line,
            mainLine,
            suspended,
            deeplink: deeplinkPrefix + selectionID,
          };
          if (book.kind === "exchange")
            quote.layDecimal = layPrice(side.decimal, 1 + (hash32(`${selectionID}|${moveMs}`) % 2));
          if (book.publishesLimits) {
            let stake = stakes.get(side.side);
            if (stake === undefined) {
              stake = this.maxStake(book, event, market, side.side, atMs);
              stakes.set(side.side, stake);
            }
            quote.maxStake = stake;
          }
          quotes.push(quote);
        }
      }
    }
    return quotes;
  }

  private offers(
    book: BookmakerProfile,
    event: ScheduledEvent,
    market: MarketModel,
    atMs: number,
    phase: MatchPhase,
    detail: SnapshotDetail,
  ): boolean {
    if (!book.groups.includes(market.group)) return false;
    if (detail === "main" && market.group !== "main") return false;
    if (detail === "moneyline" && !isHeadlineMoneyline(event, market)) return false;
    if (
      book.kind === "exchange" &&
      market.group === "main" &&
      market.betType === "SP" &&
      event.league.sportID !== "SOCCER"
    )
      return false;
    const opensAt = Math.min(
      event.startsAtMs - (market.opensHoursBefore - book.openLagHours) * HOUR_MS,
      event.startsAtMs - this.opensAtLeastMs,
    );
    if (atMs < opensAt) return false;
    const seed = this.config.seed;
    if (market.playerName) {
      const scratched = unit(seed, "scratch", event.eventID, market.playerName) < 0.04;
      if (scratched && atMs >= event.startsAtMs - 75 * MINUTE_MS) return false;
    }
    if (phase !== "live" && book.kind === "corporate" && (market.group === "player" || market.group === "special")) {
      // Corporate books pull a prop now and then (a trader reviewing it) and put it back later.
      if (unit(seed, "pull", book.bookmakerID, event.eventID, market.key, Math.floor(atMs / (30 * MINUTE_MS))) < 0.02)
        return false;
    }
    return true;
  }

  /** Start of the slot in which the bookmaker last repriced this group of the event's markets. */
  private lastMoveMs(
    book: BookmakerProfile,
    event: ScheduledEvent,
    group: MarketGroup,
    atMs: number,
    phase: MatchPhase,
  ): number {
    const slot = Math.floor(atMs / SLOT_MS);
    const toKickoff = event.startsAtMs - atMs;
    let chance = phase === "live" ? 0.35 : toKickoff < 3 * HOUR_MS ? 0.15 : toKickoff < 24 * HOUR_MS ? 0.06 : 0.025;
    if (book.kind !== "corporate") chance = Math.min(0.9, chance * 1.6);
    const keyHash = hash32(`${this.config.seed}|move|${book.bookmakerID}|${event.eventID}|${group}`);
    // The forced reprice is staggered per book and market group, so no cycle moves everything at once.
    const offset = keyHash % FORCED_MOVE_SLOTS;
    for (let k = slot; k > slot - FORCED_MOVE_SLOTS; k--) {
      if ((k + offset) % FORCED_MOVE_SLOTS === 0) return k * SLOT_MS;
      if (unitOf(keyHash, k) < chance) return k * SLOT_MS;
    }
    return (slot - FORCED_MOVE_SLOTS) * SLOT_MS;
  }

  private linesFor(
    book: BookmakerProfile,
    event: ScheduledEvent,
    market: MarketModel,
    moveMs: number,
    detail: SnapshotDetail,
  ): Array<{ line?: number; mainLine: boolean }> {
    if (market.mainLine === undefined) return [{ mainLine: true }];
    // Corporate books shade big-number lines (football points, runs, disposals) by a point now and
    // then; low-scoring lines (soccer goals, wickets, shots) are the same everywhere.
    const shadeRoll = unit(this.config.seed, "shade", book.bookmakerID, event.eventID, market.key, moveMs);
    const shadeable = book.kind === "corporate" && event.league.sportID !== "SOCCER" && Math.abs(market.mainLine) >= 3;
    const shade = shadeable ? (shadeRoll < 0.15 ? -1 : shadeRoll > 0.85 ? 1 : 0) : 0;
    const main = market.mainLine + shade * (market.lineStep ?? 1);
    const lines: Array<{ line?: number; mainLine: boolean }> = [{ line: main, mainLine: true }];
    if (book.altLines && detail === "full") {
      for (const line of alternateLines(market, event.league.sportID, main)) lines.push({ line, mainLine: false });
    }
    return lines;
  }

  /** `biasDraw(side)`: the book's uniform draw for that side at the move (shading it by up to its noise). */
  private priceSides(
    book: BookmakerProfile,
    market: MarketModel,
    line: number | undefined,
    biasDraw: (side: string) => number,
  ): Array<SideProbability & { decimal: number }> {
    const sides = market.sides(line);
    const noise = book.kind === "corporate" ? 0.12 : book.kind === "sharp" ? 0.04 : 0.03;
    const shaded = sides.map((side) => {
      const p = Math.min(0.995, Math.max(0.005, side.probability));
      const bias = (biasDraw(side.side) * 2 - 1) * noise;
      return 1 / (1 + Math.exp(-(Math.log(p / (1 - p)) + bias)));
    });
    const sum = shaded.reduce((a, b) => a + b, 0);
    const implied = withMargin(
      shaded.map((p) => p / sum),
      overroundFor(book, market.group, sides.length),
    );
    return sides.map((side, i) => ({ ...side, decimal: onLadder(book, 1 / Math.min(0.99, implied[i] ?? 0.99)) }));
  }

  private maxStake(
    book: BookmakerProfile,
    event: ScheduledEvent,
    market: MarketModel,
    side: string,
    atMs: number,
  ): number {
    const seed = this.config.seed;
    const toKickoff = event.startsAtMs - atMs;
    if (book.kind === "exchange") {
      // Matched liquidity at the best price: thin far out, deep near the off, refreshed every 10 minutes.
      const window = toKickoff < 24 * HOUR_MS ? 10 * MINUTE_MS : 60 * MINUTE_MS;
      const depth = toKickoff < 3 * HOUR_MS ? 6000 : toKickoff < 24 * HOUR_MS ? 2500 : 800;
      const roll = unit(seed, "liquidity", event.eventID, market.key, side, Math.floor(atMs / window));
      return Math.max(5, Math.round(depth * (0.15 + roll * roll * 1.6)));
    }
    const base =
      market.group === "main" ? (toKickoff < 2 * HOUR_MS ? 20000 : toKickoff < 24 * HOUR_MS ? 10000 : 5000) : 2000;
    const roll = unit(seed, "limit", book.bookmakerID, event.eventID, market.key, Math.floor(atMs / (2 * HOUR_MS)));
    return Math.round((base * (0.8 + roll * 0.4)) / 50) * 50;
  }
}

/**
 * Builds a bookmaker's margin in with the power method: implied = p^e with e < 1 chosen so the
 * sides sum to the overround. Longshots carry relatively more margin than favourites, as on real books.
 */
export function withMargin(probabilities: number[], overround: number): number[] {
  // Newton on f(e) = sum p^e - overround: convex and decreasing in e, so from e = 1 it lands left
  // of the root once and then climbs to it in a few steps (bisection took 30 passes a market).
  let exponent = 1;
  for (let i = 0; i < 20; i++) {
    let total = 0;
    let slope = 0;
    for (const p of probabilities) {
      const term = p ** exponent;
      total += term;
      slope += term * Math.log(p);
    }
    const excess = total - overround;
    if (Math.abs(excess) < 1e-12 || slope === 0) break;
    exponent = Math.min(1, Math.max(0.2, exponent - excess / slope));
  }
  return probabilities.map((p) => p ** exponent);
}

/** An event's market models by instant, shared by every book priced on it in one snapshot. */
class EventModels {
  private readonly byInstant = new Map<number, Map<string, MarketModel>>();

  constructor(
    private readonly seed: string,
    private readonly event: ScheduledEvent,
    private readonly mainOnly: boolean,
  ) {}

  at(instantMs: number): Map<string, MarketModel> {
    let models = this.byInstant.get(instantMs);
    if (!models) {
      models = new Map(marketModels(this.seed, this.event, instantMs, this.mainOnly).map((m) => [m.key, m]));
      this.byInstant.set(instantMs, models);
    }
    return models;
  }
}

/** The one market a sparse backfill keeps: the 3-way result for soccer, the moneyline elsewhere. */
function isHeadlineMoneyline(event: ScheduledEvent, market: MarketModel): boolean {
  if (market.group !== "main") return false;
  return market.betType === (event.league.sportID === "SOCCER" ? "ML3WAY" : "ML");
}

const FEED_STATES: Record<MatchPhase, FeedEvent["state"]> = {
  scheduled: "SCHEDULED",
  delayed: "DELAYED",
  live: "LIVE",
  ended: "ENDED",
  final: "FINAL",
  cancelled: "CANCELLED",
};
