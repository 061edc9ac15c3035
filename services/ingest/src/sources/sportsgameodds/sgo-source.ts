// SportsGameOdds v2: GET {baseUrl}/v2/events/ per league, following nextCursor to the end. Its
// events, teams, players, results and status already speak our contract (it extends their schema);
// each byBookmaker entry becomes one quote. A league whose fetch fails keeps its last good snapshot
// (with its old write time, so it goes stale truthfully); never are events dropped for a failure.
// The plan's objects per month are kept in the ingest store: each page asks for no more than is left.
import { oddsFormat } from "@odds/proto";
import type {
  FeedBook,
  FeedEvent,
  FeedEventState,
  FeedLeague,
  FeedQuote,
  FeedSnapshot,
  FeedSource,
  LeagueInfo,
} from "../feed-source";
import { addQuotes, bookOf } from "../books";
import { Tally } from "../http/tally";
import { LastGoodEvents } from "../last-good";
import { UpstreamClient, type UpstreamClientOptions } from "../http/upstream-client";
import { SpendAllowance, type SpendLedger } from "../spend/allowance";
import { sgoBookmakerOddsSchema, sgoEventSchema, sgoOddSchema, sgoPageSchema, type SgoEvent } from "./sgo-types";

/** Bet types we map; any other market is skipped and counted as unknown. */
const KNOWN_BET_TYPES = new Set(["ml", "ml3way", "sp", "ou", "yn", "eo", "pick"]);

export interface SgoSourceConfig {
  id: string;
  rank: number;
  baseUrl: string;
  apiKey: string;
  leagues: LeagueInfo[];
  /** Events per page the API is asked for. */
  pageLimit: number;
  /** The plan's objects (events) per calendar month; 0 = unlimited. Past it, leagues keep their last snapshot. */
  objectsPerMonth: number;
  /** Where the objects used per month are kept (the ingest store); required with a monthly limit. */
  spendLedger?: SpendLedger;
  /** Only these bookmakers (empty = all). */
  bookmakers: string[];
  http: UpstreamClientOptions;
  /** A league's fetch failed (after retries); it keeps its last good snapshot. */
  onFetchError?: (leagueID: string, err: unknown) => void;
}

export class SportsGameOddsSource implements FeedSource {
  readonly id: string;
  readonly rank: number;
  private readonly client: UpstreamClient;
  private readonly lastGood = new LastGoodEvents();
  private readonly objects: SpendAllowance;

  constructor(private readonly config: SgoSourceConfig) {
    this.id = config.id;
    this.rank = config.rank;
    this.client = new UpstreamClient(config.http);
    this.objects = new SpendAllowance({
      sourceID: config.id,
      period: "month",
      limit: config.objectsPerMonth > 0 ? config.objectsPerMonth : Number.POSITIVE_INFINITY,
      ledger: config.spendLedger,
    });
  }

  /** Objects counted against the plan in the calendar month (UTC) of the last request. */
  get objectsUsed(): number {
    return this.objects.spent;
  }

  async fetchSnapshot(at: Date): Promise<FeedSnapshot> {
    const skipped = new Tally();
    const leagues: FeedLeague[] = [];
    let failure: unknown;
    for (const league of this.config.leagues) {
      const events: FeedEvent[] = [];
      try {
        await this.fetchLeague(league, at, skipped, events);
        leagues.push(...this.lastGood.record(league, events, at, true));
      } catch (err) {
        // Pages fetched before the failure are fresh; the rest of the league is its last good snapshot.
        failure ??= err;
        this.config.onFetchError?.(league.leagueID, err);
        skipped.add("league_fetch_failed");
        leagues.push(
          ...(events.length > 0 ? this.lastGood.record(league, events, at, false) : this.lastGood.recall(league)),
        );
      }
    }
    if (leagues.length === 0 && failure !== undefined) throw failure;
    return { sourceID: this.id, leagues, tally: skipped.toRecord() };
  }

  /** Pages through one league into `events` (filled as pages arrive, so a failure keeps what came). */
  private async fetchLeague(league: LeagueInfo, at: Date, skipped: Tally, events: FeedEvent[]): Promise<void> {
    let cursor: string | undefined;
    let page = 0;
    do {
      // A page never asks for more objects than the month has left, and its size is reserved first.
      const limit = Math.min(this.config.pageLimit, await this.objects.left(at));
      const reservation = limit > 0 ? await this.objects.reserve(at, limit) : undefined;
      if (!reservation) {
        throw new Error(`SportsGameOdds plan: ${this.config.objectsPerMonth} objects this month already used`);
      }
      const url = new URL("v2/events/", withSlash(this.config.baseUrl));
      url.searchParams.set("leagueID", league.leagueID);
      url.searchParams.set("oddsAvailable", "true");
      url.searchParams.set("includeAltLines", "true");
      url.searchParams.set("limit", String(limit));
      if (cursor) url.searchParams.set("cursor", cursor);
      // The API answers 404 for a last cursor that has nothing behind it (and for a league with no
      // events at all): that is the end, not an error. A first-page 404 is counted, to tell it from a bad URL.
      let res;
      try {
        res = await this.client.getJson(url.toString(), { "x-api-key": this.config.apiKey }, [404]);
      } catch (err) {
        await this.objects.settle(reservation, 0);
        throw err;
      }
      const parsed = res.status === 404 ? undefined : sgoPageSchema.safeParse(res.body);
      await this.objects.settle(reservation, parsed?.success ? parsed.data.data.length : 0);
      if (!parsed) {
        if (page === 0) skipped.add("empty_league_404");
        break;
      }
      if (!parsed.success) throw new Error(`SportsGameOdds ${league.leagueID}: page ${page + 1} is not an events page`);
      for (const raw of parsed.data.data) {
        const event = sgoEventSchema.safeParse(raw);
        if (!event.success) skipped.add("malformed_event");
        else events.push(this.feedEvent(event.data, skipped));
      }
      cursor = parsed.data.nextCursor ?? undefined;
      page += 1;
    } while (cursor);
  }

  private feedEvent(event: SgoEvent, skipped: Tally): FeedEvent {
    const { status, teams } = event;
    const team = (side: "home" | "away") => {
      const t = teams[side];
      return {
        teamID: t.teamID,
        long: t.names.long,
        medium: t.names.medium ?? t.names.long,
        short: t.names.short ?? t.names.long,
        primaryColor: t.colors?.primary ?? "",
        secondaryColor: t.colors?.secondary ?? "",
        score: t.score,
      };
    };
    const results: FeedEvent["results"] = {};
    for (const [period, entities] of Object.entries(event.results)) {
      for (const [entity, stats] of Object.entries(entities)) {
        for (const [stat, value] of Object.entries(stats)) {
          if (typeof value !== "number") continue;
          ((results[period] ??= {})[entity] ??= {})[stat] = value;
        }
      }
    }
    return {
      eventID: event.eventID,
      type: event.type === "tournament" || event.type === "prop" ? event.type : "match",
      startsAt: new Date(status.startsAt),
      state: stateOf(status),
      currentPeriod: status.currentPeriodID,
      periodsStarted: status.periods.started,
      periodsEnded: status.periods.ended,
      clock: status.clock,
      home: team("home"),
      away: team("away"),
      players: Object.values(event.players).map((p) => ({
        playerID: p.playerID,
        teamID: p.teamID,
        name: p.name ?? [p.firstName, p.lastName].filter(Boolean).join(" "),
        firstName: p.firstName ?? "",
        lastName: p.lastName ?? "",
        position: p.position ?? "",
        jerseyNumber: p.jerseyNumber ?? 0,
      })),
      results,
      books: this.books(event, skipped),
    };
  }

  /** Inverts odds[oddID].byBookmaker[bookmakerID] into one book per bookmaker. */
  private books(event: SgoEvent, skipped: Tally): FeedBook[] {
    const books = new Map<string, FeedBook>();
    const wanted = this.config.bookmakers;
    const displayName = `${event.teams.home.names.long} vs ${event.teams.away.names.long}`;
    for (const raw of Object.values(event.odds)) {
      const odd = sgoOddSchema.safeParse(raw);
      if (!odd.success) {
        skipped.add("malformed_odd");
        continue;
      }
      const market = odd.data;
      if (!KNOWN_BET_TYPES.has(market.betTypeID.toLowerCase())) {
        skipped.add("unknown_market");
        continue;
      }
      for (const [bookmakerID, entry] of Object.entries(market.byBookmaker)) {
        if (wanted.length > 0 && !wanted.includes(bookmakerID)) continue;
        const price = sgoBookmakerOddsSchema.safeParse(entry);
        const quotes = price.success ? quotesOf(market, price.data) : undefined;
        if (!quotes) {
          skipped.add("malformed_price");
          continue;
        }
        const book = bookOf(books, bookmakerID, displayName, event.links?.bookmakers[bookmakerID] ?? "");
        addQuotes(book, quotes);
      }
    }
    return [...books.values()];
  }
}

function quotesOf(
  market: { statID: string; statEntityID: string; periodID: string; betTypeID: string; sideID: string },
  price: ReturnType<typeof sgoBookmakerOddsSchema.parse>,
): FeedQuote[] | undefined {
  const base = {
    stat: market.statID,
    entity: market.statEntityID,
    period: market.periodID,
    betType: market.betTypeID,
    side: market.sideID,
  };
  const one = (
    odds: string,
    line: string | undefined,
    available: boolean,
    mainLine: boolean,
    deeplink?: string,
  ): FeedQuote | undefined => {
    const lineValue = line === undefined ? undefined : Number(line);
    if (lineValue !== undefined && !Number.isFinite(lineValue)) return undefined;
    try {
      return {
        ...base,
        decimal: oddsFormat.americanToDecimal(odds),
        line: lineValue,
        mainLine,
        suspended: !available,
        deeplink,
      };
    } catch {
      return undefined;
    }
  };
  const main = one(
    price.odds,
    price.spread ?? price.overUnder,
    price.available,
    price.isMainLine ?? true,
    price.deeplink,
  );
  if (!main) return undefined;
  const quotes = [main];
  for (const alt of price.altLines ?? []) {
    const quote = one(alt.odds, alt.spread ?? alt.overUnder, alt.available, false);
    if (quote && quote.line !== undefined) quotes.push(quote);
  }
  return quotes;
}

function stateOf(status: SgoEvent["status"]): FeedEventState {
  if (status.cancelled) return "CANCELLED";
  if (status.finalized) return "FINAL";
  if (status.ended || status.completed) return "ENDED";
  if (status.live || status.started) return "LIVE";
  if (status.delayed) return "DELAYED";
  return "SCHEDULED";
}

/** A base URL that new URL() extends rather than replaces the last segment of. */
export function withSlash(baseUrl: string): string {
  return baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
}
