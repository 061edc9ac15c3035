// Turns the snapshots of every source into one cycle: events with consensus and fair prices,
// the raw per-bookmaker observations for history, and the catalogue.
import type { FeedBook, FeedEvent, FeedLeague, FeedQuote, FeedSnapshot } from "../sources/feed-source";
import { marketName, periodName, statName } from "./market-names";
import type {
  BookmakerPrice,
  BookObservation,
  CatalogueContent,
  CycleContent,
  EventState,
  QuoteObservation,
  SideOdds,
  TeamState,
} from "./model";
import { oddId, oddsFormat, pricing } from "@odds/proto";
import { toStatEntityID, toToken } from "./odd-id";

const { decimalToAmerican, formatLine } = oddsFormat;
const { consensusOf, fairPricesOf, sidePriceFields } = pricing;
type Consensus = pricing.Consensus;
type SideQuote = pricing.SideQuote;

const { formatOddID, isPlayerEntity, marketGroupID, opposingOddID, parseOddID } = oddId;

export interface RankedSnapshot {
  sourceID: string;
  rank: number;
  snapshot: FeedSnapshot;
}

export interface NormaliseOptions {
  /** Sharp and exchange bookmakers whose prices are de-vigged into fair odds. */
  fairOddsBookmakers: readonly string[];
}

/** Stats the results carry, so markets on them can be graded. */
const GRADED_STATS = new Set([
  "points",
  "margin",
  "bothteamstoscore",
  "disposals",
  "goals",
  "tries",
  "shotsontarget",
  "wickets",
]);

interface NormalisedQuote {
  oddID: string;
  decimal: number;
  line?: number;
  mainLine: boolean;
  layDecimal?: number;
  maxStake?: number;
  available: boolean;
  deeplink: string;
}

interface EventFromSource {
  sourceID: string;
  rank: number;
  league: FeedLeague;
  event: FeedEvent;
}

/** A feed quote in the oddID grammar, or undefined when a token does not fit it. */
export function normaliseQuote(quote: FeedQuote): NormalisedQuote | undefined {
  try {
    const oddID = formatOddID({
      statID: toToken(quote.stat),
      statEntityID: toStatEntityID(quote.entity),
      periodID: toToken(quote.period),
      betTypeID: toToken(quote.betType),
      sideID: toToken(quote.side),
    });
    if (!(quote.decimal > 1)) return undefined;
    return {
      oddID,
      decimal: quote.decimal,
      line: quote.line,
      mainLine: quote.mainLine,
      layDecimal: quote.layDecimal,
      maxStake: quote.maxStake,
      available: !quote.suspended,
      deeplink: quote.deeplink ?? "",
    };
  } catch {
    return undefined;
  }
}

/** Black or white, whichever reads better on the given colour (WCAG relative luminance). */
export function contrastColor(hex: string): string {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!match?.[1]) return "#FFFFFF";
  const channel = (offset: number) => {
    const c = parseInt(match[1]?.slice(offset, offset + 2) ?? "00", 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return luminance > 0.179 ? "#000000" : "#FFFFFF";
}

/**
 * Only the raw per-bookmaker observations of one source's snapshot (what history needs), without
 * pricing events: the backfill replays thousands of snapshots.
 */
export function observeSnapshot(source: RankedSnapshot): { observations: BookObservation[]; rejectedQuotes: number } {
  const observations: BookObservation[] = [];
  let rejectedQuotes = 0;
  for (const league of source.snapshot.leagues) {
    for (const event of league.events) {
      for (const book of event.books) {
        const quotes: QuoteObservation[] = [];
        for (const quote of book.quotes) {
          const normalised = normaliseQuote(quote);
          if (!normalised) rejectedQuotes += 1;
          else if (normalised.mainLine) quotes.push(toObservation(normalised));
        }
        observations.push({
          eventID: event.eventID,
          bookmakerID: book.bookmaker,
          sourceID: source.sourceID,
          sourceRank: source.rank,
          observedAtMs: league.lastWriteAt.getTime(),
          quotes,
        });
      }
    }
  }
  return { observations, rejectedQuotes };
}

export function normaliseCycle(snapshots: RankedSnapshot[], options: NormaliseOptions): CycleContent {
  const byEvent = new Map<string, EventFromSource[]>();
  const leagueWrites = new Map<string, number>();
  const leagues = new Map<string, FeedLeague>();
  for (const { sourceID, rank, snapshot } of snapshots) {
    for (const league of snapshot.leagues) {
      leagues.set(league.leagueID, league);
      leagueWrites.set(league.leagueID, Math.max(leagueWrites.get(league.leagueID) ?? 0, league.lastWriteAt.getTime()));
      for (const event of league.events) {
        const list = byEvent.get(event.eventID) ?? [];
        list.push({ sourceID, rank, league, event });
        byEvent.set(event.eventID, list);
      }
    }
  }

  const content: CycleContent = {
    events: [],
    eventRefs: [],
    observations: [],
    catalogue: { sports: [], leagues: [], teams: [], players: [], stats: [], events: [] },
    rejectedQuotes: 0,
  };
  for (const eventID of [...byEvent.keys()].sort()) {
    const sources = (byEvent.get(eventID) ?? []).sort(
      (a, b) => b.rank - a.rank || a.sourceID.localeCompare(b.sourceID),
    );
    const primary = sources[0];
    if (!primary) continue;
    const lastUpdatedAtMs = leagueWrites.get(primary.league.leagueID) ?? primary.league.lastWriteAt.getTime();
    const built = buildEvent(sources, lastUpdatedAtMs, options, content);
    content.events.push(built);
    content.eventRefs.push({
      eventID,
      sportID: built.sportID,
      leagueID: built.leagueID,
      startsAtMs: built.status.startsAtMs,
    });
  }
  content.catalogue = buildCatalogue([...leagues.values()], content.events);
  return content;
}

function buildEvent(
  sources: EventFromSource[],
  lastUpdatedAtMs: number,
  options: NormaliseOptions,
  content: CycleContent,
): EventState {
  const primary = sources[0] as EventFromSource;
  const { event, league } = primary;
  const sportID = league.sportID;
  const chosenBooks = new Map<string, { book: FeedBook; observedAtMs: number; quotes: NormalisedQuote[] }>();
  const feedsWithQuotes = new Set<string>();

  for (const source of sources) {
    const observedAtMs = source.league.lastWriteAt.getTime();
    for (const book of source.event.books) {
      const quotes: NormalisedQuote[] = [];
      for (const quote of book.quotes) {
        const normalised = normaliseQuote(quote);
        if (normalised) quotes.push(normalised);
        else content.rejectedQuotes += 1;
      }
      const observation: BookObservation = {
        eventID: event.eventID,
        bookmakerID: book.bookmaker,
        sourceID: source.sourceID,
        sourceRank: source.rank,
        observedAtMs,
        quotes: quotes.filter((q) => q.mainLine).map(toObservation),
      };
      content.observations.push(observation);
      if (quotes.length > 0) feedsWithQuotes.add(`${source.sourceID}|${book.bookmaker}`);
      // Sources arrive highest rank first: a bookmaker's prices come from the best source that has any.
      const chosen = chosenBooks.get(book.bookmaker);
      if (!chosen || (chosen.quotes.length === 0 && quotes.length > 0)) {
        chosenBooks.set(book.bookmaker, { book, observedAtMs, quotes });
      }
    }
  }

  const state = event.state;
  const periodsStarted = event.periodsStarted.map(toToken);
  const periodsEnded = event.periodsEnded.map(toToken);
  const started = state === "LIVE" || state === "ENDED" || state === "FINAL";
  const ended = state === "ENDED" || state === "FINAL";
  const cancelled = state === "CANCELLED";
  const team = (side: "home" | "away"): TeamState => {
    const feedTeam = side === "home" ? event.home : event.away;
    return {
      teamID: feedTeam.teamID,
      names: { long: feedTeam.long, medium: feedTeam.medium, short: feedTeam.short },
      colors: {
        primary: feedTeam.primaryColor,
        secondary: feedTeam.secondaryColor,
        primaryContrast: contrastColor(feedTeam.primaryColor),
        secondaryContrast: contrastColor(feedTeam.secondaryColor),
      },
      statEntityID: side,
      score: feedTeam.score,
    };
  };
  const home = team("home");
  const away = team("away");
  const players = Object.fromEntries(
    event.players.map((p) => [
      p.playerID,
      {
        playerID: p.playerID,
        teamID: p.teamID,
        name: p.name,
        firstName: p.firstName,
        lastName: p.lastName,
        position: p.position,
        jerseyNumber: p.jerseyNumber,
      },
    ]),
  );

  const odds = priceEvent(chosenBooks, {
    sportID,
    players: new Map(event.players.map((p) => [p.playerID, p.name])),
    teamNames: { home: home.names.long, away: away.names.long },
    periodState: (periodID: string) => ({
      started: periodID === "game" ? started : periodsStarted.includes(periodID),
      ended: periodID === "game" ? ended : periodsEnded.includes(periodID),
      cancelled,
    }),
    fairOddsBookmakers: options.fairOddsBookmakers,
  });

  const results: EventState["results"] = {};
  for (const [period, entities] of Object.entries(event.results)) {
    const periodID = toToken(period);
    results[periodID] = {};
    for (const [entity, stats] of Object.entries(entities)) {
      results[periodID][toStatEntityID(entity)] = Object.fromEntries(
        Object.entries(stats).map(([stat, value]) => [toToken(stat), value]),
      );
    }
  }

  const currentPeriodID = event.currentPeriod ? toToken(event.currentPeriod) : "";
  const display = statusDisplay(state, currentPeriodID);
  const books = [...chosenBooks.values()];
  return {
    eventID: event.eventID,
    sportID,
    leagueID: league.leagueID,
    type: event.type,
    status: {
      started,
      ended,
      live: state === "LIVE",
      cancelled,
      delayed: state === "DELAYED",
      finalized: state === "FINAL",
      completed: ended,
      startsAtMs: event.startsAt.getTime(),
      oddsPresent: Object.keys(odds).length > 0,
      oddsAvailable: Object.values(odds).some((o) => o.bookOddsAvailable),
      currentPeriodID,
      periodsStarted,
      periodsEnded,
      displayShort: display.short,
      displayLong: display.long,
    },
    info: {
      displayName: `${home.names.long} vs ${away.names.long}`,
      commenceTimeMs: event.startsAt.getTime(),
      lastUpdatedAtMs,
      bookmakersPresent: books
        .filter((b) => b.quotes.length > 0)
        .map((b) => b.book.bookmaker)
        .sort(),
      sourceBookmakerCount: feedsWithQuotes.size,
    },
    home,
    away,
    players,
    results,
    odds,
    links: {
      bookmakers: Object.fromEntries(books.map((b) => [b.book.bookmaker, b.book.eventUrl])),
      betslip: Object.fromEntries(books.map((b) => [b.book.bookmaker, { ...b.book.betslip }])),
    },
  };
}

function toObservation(quote: NormalisedQuote): QuoteObservation {
  return {
    oddID: quote.oddID,
    decimalOdds: quote.decimal,
    line: quote.line,
    isMainLine: quote.mainLine,
    layOdds: quote.layDecimal,
    maxStake: quote.maxStake,
    available: quote.available,
  };
}

function statusDisplay(state: FeedEvent["state"], currentPeriodID: string): { short: string; long: string } {
  switch (state) {
    case "LIVE":
      return { short: periodName(currentPeriodID).short, long: periodName(currentPeriodID).long };
    case "ENDED":
      return { short: "F", long: "Final (awaiting confirmation)" };
    case "FINAL":
      return { short: "F", long: "Final" };
    case "CANCELLED":
      return { short: "CAN", long: "Cancelled" };
    case "DELAYED":
      return { short: "DEL", long: "Delayed" };
    default:
      return { short: "", long: "Scheduled" };
  }
}

interface PricingContext {
  sportID: string;
  players: Map<string, string>;
  teamNames: { home: string; away: string };
  periodState(periodID: string): { started: boolean; ended: boolean; cancelled: boolean };
  fairOddsBookmakers: readonly string[];
}

function priceEvent(
  books: Map<string, { book: FeedBook; observedAtMs: number; quotes: NormalisedQuote[] }>,
  context: PricingContext,
): Record<string, SideOdds> {
  const mainQuotes = new Map<string, SideQuote[]>();
  const prices = new Map<string, Record<string, BookmakerPrice>>();
  const altLines = new Map<string, Record<string, Record<string, BookmakerPrice>>>();
  for (const [bookmakerID, { book, observedAtMs, quotes }] of books) {
    for (const quote of quotes) {
      const parts = parseOddID(quote.oddID);
      const price: BookmakerPrice = {
        bookmakerID,
        odds: decimalToAmerican(quote.decimal),
        decimal: quote.decimal,
        available: quote.available,
        lastUpdatedAtMs: observedAtMs,
        eventName: book.eventName,
        deeplink: quote.deeplink,
      };
      if (quote.line !== undefined) {
        if (parts.betTypeID === "sp") price.spread = formatLine(quote.line, true);
        else price.overUnder = formatLine(quote.line, false);
      }
      if (quote.mainLine) {
        const list = mainQuotes.get(quote.oddID) ?? [];
        list.push({ bookmakerID, decimal: quote.decimal, line: quote.line, available: quote.available });
        mainQuotes.set(quote.oddID, list);
        const byBookmaker = prices.get(quote.oddID) ?? {};
        byBookmaker[bookmakerID] = price;
        prices.set(quote.oddID, byBookmaker);
      } else if (quote.line !== undefined) {
        const lines = altLines.get(quote.oddID) ?? {};
        const key = parts.betTypeID === "sp" ? formatLine(quote.line, true) : formatLine(quote.line, false);
        lines[key] = { ...lines[key], [bookmakerID]: price };
        altLines.set(quote.oddID, lines);
      }
    }
  }

  const consensus = new Map<string, Consensus>();
  const groups = new Map<string, Map<string, SideQuote[]>>();
  for (const [oddID, quotes] of mainQuotes) {
    const sideConsensus = consensusOf(quotes);
    if (sideConsensus) consensus.set(oddID, sideConsensus);
    const group = marketGroupID(parseOddID(oddID));
    const sides = groups.get(group) ?? new Map<string, SideQuote[]>();
    sides.set(oddID, quotes);
    groups.set(group, sides);
  }

  const odds: Record<string, SideOdds> = {};
  for (const sides of groups.values()) {
    const fair = fairPricesOf(sides, consensus, context.fairOddsBookmakers);
    for (const oddID of [...sides.keys()].sort()) {
      const parts = parseOddID(oddID);
      const side = consensus.get(oddID);
      if (!side) continue;
      const playerID = isPlayerEntity(parts.statEntityID) ? parts.statEntityID : undefined;
      const period = context.periodState(parts.periodID);
      odds[oddID] = {
        oddID,
        opposingOddID: opposingOddID(parts, sides.size),
        marketName: marketName(parts, {
          sportID: context.sportID,
          playerName: playerID ? context.players.get(playerID) : undefined,
          teamName:
            parts.statEntityID === "home"
              ? context.teamNames.home
              : parts.statEntityID === "away"
                ? context.teamNames.away
                : undefined,
        }),
        ...parts,
        playerID,
        ...sidePriceFields(parts.betTypeID, side, fair, oddID),
        started: period.started,
        ended: period.ended,
        cancelled: period.cancelled,
        scoringSupported: GRADED_STATS.has(parts.statID),
        byBookmaker: prices.get(oddID) ?? {},
        altLines: altLines.get(oddID) ?? {},
      };
    }
  }
  return odds;
}

function buildCatalogue(leagues: FeedLeague[], events: EventState[]): CatalogueContent {
  const catalogue: CatalogueContent = { sports: [], leagues: [], teams: [], players: [], stats: [], events: [] };
  const sports = new Map<string, CatalogueContent["sports"][number]>();
  for (const league of [...leagues].sort((a, b) => a.leagueID.localeCompare(b.leagueID))) {
    sports.set(league.sportID, { sportID: league.sportID, name: league.sportName, shortName: league.sportShortName });
    catalogue.leagues.push({
      leagueID: league.leagueID,
      sportID: league.sportID,
      name: league.name,
      shortName: league.shortName,
    });
  }
  catalogue.sports = [...sports.values()].sort((a, b) => a.sportID.localeCompare(b.sportID));

  const teams = new Map<string, CatalogueContent["teams"][number]>();
  const players = new Map<string, CatalogueContent["players"][number]>();
  const stats = new Map<string, { levels: { all: boolean; team: boolean; player: boolean }; sportIDs: Set<string> }>();
  const noteStat = (statID: string, entity: string, sportID: string) => {
    const stat = stats.get(statID) ?? {
      levels: { all: false, team: false, player: false },
      sportIDs: new Set<string>(),
    };
    if (entity === "all") stat.levels.all = true;
    else if (entity === "home" || entity === "away" || !isPlayerEntity(entity)) stat.levels.team = true;
    else stat.levels.player = true;
    stat.sportIDs.add(sportID);
    stats.set(statID, stat);
  };
  for (const event of events) {
    for (const team of [event.home, event.away]) {
      teams.set(team.teamID, {
        teamID: team.teamID,
        sportID: event.sportID,
        leagueID: event.leagueID,
        names: team.names,
        colors: team.colors,
        statEntityID: team.statEntityID,
      });
    }
    for (const player of Object.values(event.players)) {
      const known = players.get(player.playerID);
      if (known) known.eventIDs.push(event.eventID);
      else
        players.set(player.playerID, {
          ...player,
          sportID: event.sportID,
          leagueID: event.leagueID,
          eventIDs: [event.eventID],
        });
    }
    for (const entities of Object.values(event.results)) {
      for (const [entity, values] of Object.entries(entities)) {
        for (const statID of Object.keys(values)) noteStat(statID, entity, event.sportID);
      }
    }
    for (const side of Object.values(event.odds)) noteStat(side.statID, side.statEntityID, event.sportID);
    catalogue.events.push({
      eventID: event.eventID,
      sportID: event.sportID,
      leagueID: event.leagueID,
      active: !event.status.ended && !event.status.cancelled,
      markets: Object.values(event.odds).map((side) => ({
        oddID: side.oddID,
        marketName: side.marketName,
        playerID: side.playerID,
        bookmakerIDs: Object.keys(side.byBookmaker).sort(),
      })),
    });
  }
  catalogue.teams = [...teams.values()].sort((a, b) => a.teamID.localeCompare(b.teamID));
  catalogue.players = [...players.values()].sort((a, b) => a.playerID.localeCompare(b.playerID));
  catalogue.stats = [...stats.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([statID, stat]) => ({
      statID,
      levels: stat.levels,
      displays: statName(statID),
      sportIDs: [...stat.sportIDs].sort(),
    }));
  return catalogue;
}
