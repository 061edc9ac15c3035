// The Odds API v4, region au: per league one /odds request for the main markets (h2h, spreads,
// totals, and h2h_lay for exchanges), and per event /events/{id}/odds for player and period markets,
// within a daily credit budget. Teams and players come as names; the cycle matches them (and the
// event) to the ID-carrying sources through `nameMatching`. What a request failed to refresh stays
// as last fetched, with its real fetch time. Every request is billed against the daily budget kept
// in the ingest store: its cost reserved before it is made, settled to x-requests-last after.
import { oddsFormat } from "@odds/proto";
import type {
  FeedBook,
  FeedEvent,
  FeedLeague,
  FeedPlayer,
  FeedQuote,
  FeedSnapshot,
  FeedSource,
  FeedTeam,
  LeagueInfo,
  NameMatching,
} from "../feed-source";
import { addQuotes, bookOf } from "../books";
import { Tally } from "../http/tally";
import { UpstreamClient, type UpstreamClientOptions, type UpstreamResponse } from "../http/upstream-client";
import { SpendAllowance, type SpendLedger } from "../spend/allowance";
import { withSlash } from "../sportsgameodds/sgo-source";
import { farReserve, pollingInterval, type PollingStep } from "./budget";
import { marketKind, outcomeTokens, type MarketTable } from "./market-table";
import { toaBookmakerSchema, toaEventSchema, toaMarketSchema, toaOutcomeSchema, type ToaEvent } from "./toa-types";

export interface TheOddsApiLeague extends LeagueInfo {
  /** The API's sport key (aussierules_afl, rugbyleague_nrl, soccer_epl, ...). */
  sportKey: string;
  /** Per-event markets (player and period markets); none = main markets only. */
  eventMarkets: string[];
}

export interface TheOddsApiConfig {
  id: string;
  rank: number;
  baseUrl: string;
  apiKey: string;
  regions: string;
  /** Their bookmaker key -> our bookmakerID; other bookmakers are left out. */
  bookmakers: Record<string, string>;
  /** Our bookmakerIDs that are exchanges: h2h_lay is asked for and mapped to layOdds. */
  exchanges: string[];
  leagues: TheOddsApiLeague[];
  markets: MarketTable;
  dailyBudget: number;
  /** Where the credits spent per day are kept (the ingest store). */
  spendLedger: SpendLedger;
  /** How often each league's main markets are fetched. */
  mainEveryMs: number;
  eventPolling: PollingStep[];
  nameMatching: NameMatching;
  http: UpstreamClientOptions;
  onFetchError?: (what: string, err: unknown) => void;
}

const MAIN_MARKETS = ["h2h", "spreads", "totals"];

interface Fetched<T> {
  value: T;
  at: Date;
}

export class TheOddsApiSource implements FeedSource {
  readonly id: string;
  readonly rank: number;
  readonly nameMatching: NameMatching;
  readonly budget: SpendAllowance;
  private readonly client: UpstreamClient;
  /** Headers of the last answer the upstream gave (any status), to settle what a request cost. */
  private lastAnswer: Headers | undefined;
  /** Last good main answer per league and per-event answer per event. */
  private readonly main = new Map<string, Fetched<ToaEvent[]>>();
  private readonly perEvent = new Map<string, Fetched<ToaEvent>>();

  constructor(private readonly config: TheOddsApiConfig) {
    this.id = config.id;
    this.rank = config.rank;
    this.nameMatching = config.nameMatching;
    this.budget = new SpendAllowance({
      sourceID: config.id,
      period: "day",
      limit: config.dailyBudget,
      ledger: config.spendLedger,
    });
    this.client = new UpstreamClient({
      ...config.http,
      onAnswer: (status, headers) => {
        this.lastAnswer = headers;
        const remaining = creditHeader(headers, "x-requests-remaining");
        if (remaining !== undefined) this.budget.observePlan(remaining);
        config.http.onAnswer?.(status, headers);
      },
    });
  }

  async fetchSnapshot(at: Date): Promise<FeedSnapshot> {
    const tally = new Tally();
    const leagues: FeedLeague[] = [];
    for (const league of this.config.leagues) {
      await this.refreshMain(league, at, tally);
      const main = this.main.get(league.leagueID);
      if (!main) continue;
      await this.refreshEvents(league, main.value, at, tally);
      leagues.push(this.feedLeague(league, main, tally));
    }
    return { sourceID: this.id, leagues, tally: tally.toRecord() };
  }

  private get mainMarkets(): string[] {
    const hasExchange = Object.values(this.config.bookmakers).some((id) => this.config.exchanges.includes(id));
    return hasExchange ? [...MAIN_MARKETS, "h2h_lay"] : MAIN_MARKETS;
  }

  private regionCount(): number {
    return this.config.regions.split(",").filter((r) => r.trim()).length;
  }

  private async refreshMain(league: TheOddsApiLeague, at: Date, tally: Tally): Promise<void> {
    const last = this.main.get(league.leagueID);
    if (last && at.getTime() - last.at.getTime() < this.config.mainEveryMs) return;
    const cost = this.mainMarkets.length * this.regionCount();
    const url = this.url(`v4/sports/${league.sportKey}/odds`, this.mainMarkets);
    const res = await this.billedGet(at, url, cost, 0, `${league.sportKey} odds`, tally);
    if (!res) return;
    try {
      if (!Array.isArray(res.body))
        throw new Error(`The Odds API ${league.sportKey}: the answer is not a list of events`);
      const events: ToaEvent[] = [];
      for (const raw of res.body) {
        const event = toaEventSchema.safeParse(raw);
        if (event.success) events.push(event.data);
        else tally.add("malformed_event");
      }
      this.main.set(league.leagueID, { value: events, at });
      // Per-event answers of events the league no longer lists have left with them.
      const listed = new Set(events.map((e) => e.id));
      for (const [id, fetched] of this.perEvent) {
        if (fetched.value.sport_key === league.sportKey && !listed.has(id)) this.perEvent.delete(id);
      }
    } catch (err) {
      tally.add("request_failed");
      this.config.onFetchError?.(`${league.sportKey} odds`, err);
    }
  }

  /** Credits left today; 0 when the spend store cannot say (then nothing billed is made anyway). */
  private async leftToday(at: Date): Promise<number> {
    try {
      return Math.max(0, await this.budget.left(at));
    } catch {
      return 0;
    }
  }

  /**
   * One billed GET: `cost` reserved (with `keep` still left after it) before the request, settled
   * after it to what the answer says it cost. A failed request that got an answer costs what that
   * answer says (nothing when it does not say); one that got no answer keeps its reservation.
   * Undefined when the budget, the spend store or the request said no (each counted in the tally).
   */
  private async billedGet(
    at: Date,
    url: string,
    cost: number,
    keep: number,
    what: string,
    tally: Tally,
  ): Promise<UpstreamResponse | undefined> {
    let reservation;
    try {
      reservation = await this.budget.reserve(at, cost, keep);
    } catch (err) {
      tally.add("spend_store_failed");
      this.config.onFetchError?.(`${what} (spend store)`, err);
      return undefined;
    }
    if (!reservation) {
      tally.add("budget_skipped_request");
      return undefined;
    }
    this.lastAnswer = undefined;
    let res: UpstreamResponse | undefined;
    let actual = cost;
    try {
      res = await this.client.getJson(url, {});
      actual = creditHeader(res.headers, "x-requests-last") ?? cost;
    } catch (err) {
      tally.add("request_failed");
      this.config.onFetchError?.(what, err);
      if (this.lastAnswer) actual = creditHeader(this.lastAnswer, "x-requests-last") ?? 0;
    }
    try {
      await this.budget.settle(reservation, actual);
    } catch (err) {
      // The reservation stays stored: the day is over-counted, never under-counted.
      tally.add("spend_store_failed");
      this.config.onFetchError?.(`${what} (spend store)`, err);
    }
    return res;
  }

  /** Polls the per-event markets of events that are due, nearest kickoff first, within the budget. */
  private async refreshEvents(league: TheOddsApiLeague, events: ToaEvent[], at: Date, tally: Tally): Promise<void> {
    if (league.eventMarkets.length === 0) return;
    const cost = league.eventMarkets.length * this.regionCount();
    const byKickoff = [...events].sort((a, b) => Date.parse(a.commence_time) - Date.parse(b.commence_time));
    for (const event of byKickoff) {
      const msToKickoff = Date.parse(event.commence_time) - at.getTime();
      const last = this.perEvent.get(event.id);
      if (last) {
        const leftShare = this.config.dailyBudget > 0 ? (await this.leftToday(at)) / this.config.dailyBudget : 0;
        if (at.getTime() - last.at.getTime() < pollingInterval(this.config.eventPolling, msToKickoff, leftShare))
          continue;
      }
      const url = this.url(
        `v4/sports/${league.sportKey}/events/${encodeURIComponent(event.id)}/odds`,
        league.eventMarkets,
      );
      const keep = farReserve(this.config.dailyBudget, msToKickoff);
      const what = `${league.sportKey} event ${event.id}`;
      const res = await this.billedGet(at, url, cost, keep, what, tally);
      if (!res) continue;
      try {
        const parsed = toaEventSchema.safeParse(res.body);
        if (!parsed.success) throw new Error(`The Odds API event ${event.id}: the answer is not an event`);
        this.perEvent.set(event.id, { value: parsed.data, at });
      } catch (err) {
        tally.add("request_failed");
        this.config.onFetchError?.(what, err);
      }
    }
  }

  private url(path: string, markets: string[]): string {
    const url = new URL(path, withSlash(this.config.baseUrl));
    const params = url.searchParams;
    params.set("apiKey", this.config.apiKey);
    params.set("regions", this.config.regions);
    params.set("markets", markets.join(","));
    params.set("oddsFormat", "american");
    params.set("dateFormat", "iso");
    params.set("bookmakers", Object.keys(this.config.bookmakers).join(","));
    params.set("includeLinks", "true");
    params.set("includeSids", "true");
    params.set("includeBetLimits", "true");
    return url.toString();
  }

  private feedLeague(league: TheOddsApiLeague, main: Fetched<ToaEvent[]>, tally: Tally): FeedLeague {
    let lastWriteMs = main.at.getTime();
    const events = main.value.map((event) => {
      const extra = this.perEvent.get(event.id);
      if (extra) lastWriteMs = Math.max(lastWriteMs, extra.at.getTime());
      return this.feedEvent(league, event, extra?.value, main.at, tally);
    });
    const { sportKey: _sportKey, eventMarkets: _eventMarkets, ...info } = league;
    return { ...info, lastWriteAt: new Date(lastWriteMs), events };
  }

  private feedEvent(
    league: TheOddsApiLeague,
    event: ToaEvent,
    extra: ToaEvent | undefined,
    mainAt: Date,
    tally: Tally,
  ): FeedEvent {
    const startsAt = new Date(event.commence_time);
    const players = new Map<string, FeedPlayer>();
    const playerEntity = (name: string) => {
      const playerID = provisionalPlayerID(name, league.leagueID);
      if (!players.has(playerID)) players.set(playerID, provisionalPlayer(playerID, name));
      return playerID;
    };
    const books = new Map<string, FeedBook>();
    for (const source of [event, extra]) {
      if (!source) continue;
      for (const raw of source.bookmakers) this.addBook(books, raw, event, playerEntity, tally);
    }
    return {
      eventID: `toa_${event.id}`,
      type: "match",
      startsAt,
      state: startsAt.getTime() <= mainAt.getTime() ? "LIVE" : "SCHEDULED",
      periodsStarted: [],
      periodsEnded: [],
      home: provisionalTeam(event.home_team, league.leagueID),
      away: provisionalTeam(event.away_team, league.leagueID),
      players: [...players.values()],
      results: {},
      books: [...books.values()],
    };
  }

  private addBook(
    books: Map<string, FeedBook>,
    raw: unknown,
    event: ToaEvent,
    playerEntity: (name: string) => string,
    tally: Tally,
  ): void {
    const parsed = toaBookmakerSchema.safeParse(raw);
    if (!parsed.success) {
      tally.add("malformed_bookmaker");
      return;
    }
    const bookmaker = parsed.data;
    const bookmakerID = this.config.bookmakers[bookmaker.key];
    if (!bookmakerID) {
      tally.add("unknown_bookmaker");
      return;
    }
    const book = bookOf(books, bookmakerID, `${event.home_team} vs ${event.away_team}`, bookmaker.link ?? "");
    const context = { homeTeam: event.home_team, awayTeam: event.away_team, threeWay: false, playerEntity };
    const lays: Array<{ period: string; name: string; decimal: number; betLimit?: number }> = [];
    for (const rawMarket of bookmaker.markets) {
      const market = toaMarketSchema.safeParse(rawMarket);
      const kind = market.success ? marketKind(market.data.key, this.config.markets) : undefined;
      if (!market.success) {
        tally.add("malformed_market");
        continue;
      }
      if (!kind) {
        tally.add("unknown_market");
        continue;
      }
      const outcomes = market.data.outcomes.flatMap((o) => {
        const outcome = toaOutcomeSchema.safeParse(o);
        if (!outcome.success) tally.add("malformed_outcome");
        return outcome.success ? [outcome.data] : [];
      });
      const threeWay = outcomes.some((o) => o.name.toLowerCase() === "draw");
      for (const outcome of outcomes) {
        const decimal = decimalOf(outcome.price);
        if (decimal === undefined) {
          tally.add("malformed_outcome");
          continue;
        }
        if (kind.kind === "lay") {
          lays.push({ period: kind.period, name: outcome.name, decimal, betLimit: outcome.bet_limit ?? undefined });
          continue;
        }
        const tokens = outcomeTokens(kind, outcome, { ...context, threeWay });
        if (!tokens) {
          tally.add("unknown_outcome");
          continue;
        }
        const quote: FeedQuote = {
          ...tokens,
          decimal,
          mainLine: kind.kind === "player" || kind.mainLine,
          suspended: false,
          maxStake: outcome.bet_limit ?? undefined,
          deeplink: outcome.link ?? market.data.link ?? undefined,
        };
        addQuotes(book, [quote]);
      }
    }
    // An exchange's lay side joins its back quote on the same outcome (h2h or its three-way form).
    for (const lay of lays) {
      const back = book.quotes.find((q) => {
        if (q.period !== lay.period || (q.betType !== "ml" && q.betType !== "ml3way")) return false;
        const tokens = outcomeTokens({ kind: "team", base: "h2h", period: lay.period, mainLine: true }, lay, {
          ...context,
          threeWay: q.betType === "ml3way",
        });
        return tokens?.side === q.side;
      });
      if (!back) {
        tally.add("unmatched_lay");
        continue;
      }
      back.layDecimal = lay.decimal;
      back.maxStake ??= lay.betLimit;
    }
  }
}

/** A credit count header (x-requests-last, x-requests-remaining), when present and numeric. */
function creditHeader(headers: Headers, name: string): number | undefined {
  const value = Number(headers.get(name));
  return headers.has(name) && Number.isFinite(value) ? value : undefined;
}

function decimalOf(american: number): number | undefined {
  if (!Number.isInteger(american)) return undefined;
  try {
    return oddsFormat.americanToDecimal(american > 0 ? `+${american}` : String(american));
  } catch {
    return undefined;
  }
}

/** A name as an upper-case ID token ("Nick Daicos" -> NICK_DAICOS). */
export function upperToken(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
}

/** Until matched to a catalogue team: TEAM_NAME_LEAGUE (the convention of the ID-carrying sources). */
function provisionalTeam(name: string, leagueID: string): FeedTeam {
  return {
    teamID: `${upperToken(name)}_${leagueID}`,
    long: name,
    medium: name,
    short: name,
    primaryColor: "",
    secondaryColor: "",
  };
}

function provisionalPlayerID(name: string, leagueID: string): string {
  return `${upperToken(name)}_1_${leagueID}`;
}

function provisionalPlayer(playerID: string, name: string): FeedPlayer {
  const [firstName = "", ...rest] = name.trim().split(/\s+/);
  return { playerID, teamID: "", name, firstName, lastName: rest.join(" "), position: "", jerseyNumber: 0 };
}
