// The markets a simulated event is priced on and their true probabilities at an instant.
import { competitorSport } from "./competitors";
import { matchStateAt, preMatchExpectation, profileOf, type MatchState, type PeriodSpan } from "./match";
import { playerMarketModels, teamPlayerMarketModels } from "./player-markets";
import { normalCdf } from "./random";
import type { ScheduledEvent } from "./schedule";

export type MarketGroup = "main" | "period" | "team" | "special" | "player";

export interface SideProbability {
  entity: string;
  side: string;
  probability: number;
  line?: number;
}

export interface MarketModel {
  /** stat|entity|period|betType: one market, all of its sides. */
  key: string;
  stat: string;
  period: string;
  betType: string;
  group: MarketGroup;
  /** Markets with a line: the model's main line (home line for spreads, total for totals). */
  mainLine?: number;
  lineStep?: number;
  /** Hours before kickoff the market opens. */
  opensHoursBefore: number;
  /** Player the market is on, for late scratchings. */
  playerName?: string;
  sides(line?: number): SideProbability[];
}

/** Distribution of the final margin and total of a period, given what has happened so far. */
interface Outlook {
  pMarginAbove(x: number): number;
  pMarginBelow(x: number): number;
  pTotalAbove(x: number): number;
  pBothScore(): number;
  marginMean: number;
  totalMean: number;
}

function normalOutlook(marginMean: number, marginSd: number, totalMean: number, totalSd: number): Outlook {
  return {
    pMarginAbove: (x) => 1 - normalCdf((x - marginMean) / marginSd),
    pMarginBelow: (x) => normalCdf((x - marginMean) / marginSd),
    pTotalAbove: (x) => 1 - normalCdf((x - totalMean) / totalSd),
    pBothScore: () => 1,
    marginMean,
    totalMean,
  };
}

function poissonPmf(lambda: number, max: number): number[] {
  const out: number[] = [];
  let term = Math.exp(-lambda);
  for (let k = 0; k <= max; k++) {
    out.push(term);
    term *= lambda / (k + 1);
  }
  return out;
}

function poissonOutlook(homeRate: number, awayRate: number, homeNow: number, awayNow: number): Outlook {
  const home = poissonPmf(homeRate, 10);
  const away = poissonPmf(awayRate, 10);
  const sumWhere = (test: (h: number, a: number) => boolean) => {
    let total = 0;
    for (let h = 0; h <= 10; h++)
      for (let a = 0; a <= 10; a++) if (test(h + homeNow, a + awayNow)) total += (home[h] ?? 0) * (away[a] ?? 0);
    return total;
  };
  return {
    pMarginAbove: (x) => sumWhere((h, a) => h - a > x),
    pMarginBelow: (x) => sumWhere((h, a) => h - a < x),
    pTotalAbove: (x) => sumWhere((h, a) => h + a > x),
    pBothScore: () => sumWhere((h, a) => h > 0 && a > 0),
    marginMean: homeNow - awayNow + homeRate - awayRate,
    totalMean: homeNow + awayNow + homeRate + awayRate,
  };
}

/** The outlook of a whole game (periodID "game") or one period, at an instant. */
function outlookOf(
  seed: string,
  event: ScheduledEvent,
  atMs: number,
  state: MatchState,
  period: PeriodSpan | undefined,
): Outlook {
  const profile = profileOf(event);
  const expectation = preMatchExpectation(seed, event, atMs);
  const share = period?.share ?? 1;
  let remaining = share;
  let homeNow = 0;
  let awayNow = 0;
  if (state.phase === "live") {
    if (period) {
      const progress = Math.min(
        1,
        Math.max(0, (state.elapsedMin - period.startMin) / (period.endMin - period.startMin)),
      );
      remaining = share * (1 - progress);
      homeNow = state.results[period.periodID]?.HOME?.points ?? 0;
      awayNow = state.results[period.periodID]?.AWAY?.points ?? 0;
    } else {
      const played = profile.periods
        .filter((p) => p.leaf)
        .reduce(
          (sum, p) =>
            sum + p.share * Math.min(1, Math.max(0, (state.elapsedMin - p.startMin) / (p.endMin - p.startMin))),
          0,
        );
      remaining = Math.max(0.01, 1 - played);
      homeNow = state.homeScore ?? 0;
      awayNow = state.awayScore ?? 0;
    }
  }
  if (profile.model === "poisson") {
    const homeRate = Math.max(0.05, (expectation.total + expectation.margin) / 2) * remaining;
    const awayRate = Math.max(0.05, (expectation.total - expectation.margin) / 2) * remaining;
    return poissonOutlook(homeRate, awayRate, homeNow, awayNow);
  }
  const sdScale = Math.sqrt(Math.max(remaining, 0.005));
  return normalOutlook(
    homeNow - awayNow + expectation.margin * remaining,
    profile.marginSd * sdScale,
    homeNow + awayNow + expectation.total * remaining,
    profile.totalSd * sdScale,
  );
}

const halfLine = (x: number) => Math.floor(x) + 0.5;

function moneyline(outlook: Outlook): SideProbability[] {
  const home = outlook.pMarginAbove(0);
  const away = outlook.pMarginBelow(0);
  return [
    { entity: "HOME", side: "HOME", probability: home / (home + away) },
    { entity: "AWAY", side: "AWAY", probability: away / (home + away) },
  ];
}

function threeWay(outlook: Outlook): SideProbability[] {
  const home = outlook.pMarginAbove(0);
  const away = outlook.pMarginBelow(0);
  return [
    { entity: "HOME", side: "HOME", probability: home },
    { entity: "AWAY", side: "AWAY", probability: away },
    { entity: "ALL", side: "DRAW", probability: Math.max(0.01, 1 - home - away) },
  ];
}

function spread(outlook: Outlook, homeLine: number): SideProbability[] {
  const home = outlook.pMarginAbove(-homeLine);
  return [
    { entity: "HOME", side: "HOME", probability: home, line: homeLine },
    { entity: "AWAY", side: "AWAY", probability: 1 - home, line: -homeLine },
  ];
}

function total(outlook: Outlook, line: number, entity = "ALL"): SideProbability[] {
  const over = outlook.pTotalAbove(line);
  return [
    { entity, side: "OVER", probability: over, line },
    { entity, side: "UNDER", probability: 1 - over, line },
  ];
}

function overUnderModel(
  key: string,
  stat: string,
  period: string,
  group: MarketGroup,
  mainLine: number,
  sides: (line?: number) => SideProbability[],
  opensHoursBefore: number,
): MarketModel {
  return { key, stat, period, betType: "OU", group, mainLine, lineStep: 1, opensHoursBefore, sides };
}

/** Every market the event is priced on at `atMs` (pre-match or in play), with true probabilities. */
export function marketModels(seed: string, event: ScheduledEvent, atMs: number, mainOnly = false): MarketModel[] {
  const state = matchStateAt(seed, event, atMs);
  if (state.phase !== "scheduled" && state.phase !== "delayed" && state.phase !== "live") return [];
  const competitor = competitorSport(event.league.sportID);
  if (competitor) return competitor.models(seed, event, atMs, state, mainOnly);
  const live = state.phase === "live";
  const profile = profileOf(event);
  const sport = event.league.sportID;
  const models: MarketModel[] = [];
  const game = outlookOf(seed, event, atMs, state, undefined);

  // Full-game main markets stay up in play; everything else closes at the start.
  if (sport === "SOCCER") {
    models.push({
      key: "POINTS|ALL|GAME|ML3WAY",
      stat: "POINTS",
      period: "GAME",
      betType: "ML3WAY",
      group: "main",
      opensHoursBefore: 168,
      sides: () => threeWay(game),
    });
  }
  models.push({
    key: "POINTS|ALL|GAME|ML",
    stat: "POINTS",
    period: "GAME",
    betType: "ML",
    group: "main",
    opensHoursBefore: 168,
    sides: () => moneyline(game),
  });
  if (sport !== "CRICKET") {
    const homeLine = halfLine(-game.marginMean);
    models.push({
      key: "POINTS|ALL|GAME|SP",
      stat: "POINTS",
      period: "GAME",
      betType: "SP",
      group: "main",
      mainLine: homeLine,
      lineStep: 1,
      opensHoursBefore: 168,
      sides: (line = homeLine) => spread(game, line),
    });
    const totalLine = halfLine(game.totalMean);
    models.push(
      overUnderModel(
        "POINTS|ALL|GAME|OU",
        "POINTS",
        "GAME",
        "main",
        totalLine,
        (line = totalLine) => total(game, line),
        168,
      ),
    );
  }
  if (live || mainOnly) return models;

  // Every half and quarter (innings for cricket), as Australian books price them.
  const periodsPriced: Record<string, string[]> = {
    AUSSIE_RULES: ["1H", "2H", "1Q", "2Q", "3Q", "4Q"],
    RUGBY_LEAGUE: ["1H", "2H"],
    SOCCER: ["1H", "2H"],
    CRICKET: ["1I", "2I", "1IX6"],
  };
  for (const periodToken of periodsPriced[sport] ?? []) {
    const period = profile.periods.find((p) => p.periodID === periodToken.toLowerCase());
    const outlook = outlookOf(seed, event, atMs, state, period);
    const base = `POINTS|ALL|${periodToken}`;
    if (sport === "CRICKET") {
      // Innings markets: runs scored by whichever side bats.
      // Only one side bats in an innings, so the period's total is that side's runs.
      const line = halfLine(outlook.totalMean);
      const innings = normalOutlookForInnings(
        outlook.totalMean,
        profile.totalSd * 0.55 * Math.sqrt(period?.share ? period.share / 0.5 : 1),
      );
      models.push(
        overUnderModel(`${base}|OU`, "POINTS", periodToken, "period", line, (l = line) => total(innings, l), 72),
      );
      continue;
    }
    if (sport === "SOCCER") {
      models.push({
        key: `${base}|ML3WAY`,
        stat: "POINTS",
        period: periodToken,
        betType: "ML3WAY",
        group: "period",
        opensHoursBefore: 72,
        sides: () => threeWay(outlook),
      });
    } else {
      models.push({
        key: `${base}|ML`,
        stat: "POINTS",
        period: periodToken,
        betType: "ML",
        group: "period",
        opensHoursBefore: 72,
        sides: () => moneyline(outlook),
      });
      const homeLine = halfLine(-outlook.marginMean);
      models.push({
        key: `${base}|SP`,
        stat: "POINTS",
        period: periodToken,
        betType: "SP",
        group: "period",
        mainLine: homeLine,
        lineStep: 1,
        opensHoursBefore: 72,
        sides: (line = homeLine) => spread(outlook, line),
      });
    }
    const totalLine = halfLine(outlook.totalMean);
    models.push(
      overUnderModel(
        `${base}|OU`,
        "POINTS",
        periodToken,
        "period",
        totalLine,
        (line = totalLine) => total(outlook, line),
        72,
      ),
    );
  }

  if (sport !== "CRICKET") {
    for (const side of ["HOME", "AWAY"] as const) {
      const sign = side === "HOME" ? 1 : -1;
      const teamMean = (game.totalMean + sign * game.marginMean) / 2;
      const teamSd = profile.model === "poisson" ? 1 : profile.totalSd * 0.7;
      const team = profile.model === "poisson" ? poissonTeam(teamMean) : normalOutlook(0, 1, teamMean, teamSd);
      const line = halfLine(teamMean);
      models.push(
        overUnderModel(
          `POINTS|${side}|GAME|OU`,
          "POINTS",
          "GAME",
          "team",
          line,
          (l = line) => total(team, l, side),
          72,
        ),
      );
    }
  }
  if (sport === "AUSSIE_RULES" || sport === "RUGBY_LEAGUE") {
    const big = sport === "AUSSIE_RULES" ? 40 : 13;
    const pBetween = (lo: number, hi: number) => game.pMarginAbove(lo - 0.5) - game.pMarginAbove(hi + 0.5);
    const buckets: SideProbability[] = [
      { entity: "ALL", side: `HOME1TO${big - 1}`, probability: pBetween(1, big - 1) },
      { entity: "ALL", side: `HOME${big}PLUS`, probability: game.pMarginAbove(big - 0.5) },
      { entity: "ALL", side: "DRAW", probability: Math.max(0.004, pBetween(0, 0)) },
      {
        entity: "ALL",
        side: `AWAY1TO${big - 1}`,
        probability: game.pMarginBelow(-0.5) - game.pMarginBelow(-big + 0.5),
      },
      { entity: "ALL", side: `AWAY${big}PLUS`, probability: game.pMarginBelow(-big + 0.5) },
    ];
    models.push({
      key: "MARGIN|ALL|GAME|PICK",
      stat: "MARGIN",
      period: "GAME",
      betType: "PICK",
      group: "special",
      opensHoursBefore: 72,
      sides: () => buckets,
    });
  }
  if (sport !== "CRICKET") {
    models.push({
      key: "POINTS|ALL|GAME|EO",
      stat: "POINTS",
      period: "GAME",
      betType: "EO",
      group: "special",
      opensHoursBefore: 72,
      sides: () => [
        { entity: "ALL", side: "ODD", probability: sport === "SOCCER" ? 0.49 : 0.5 },
        { entity: "ALL", side: "EVEN", probability: sport === "SOCCER" ? 0.51 : 0.5 },
      ],
    });
  }
  if (sport === "SOCCER") {
    const both = game.pBothScore();
    models.push({
      key: "BOTHTEAMSTOSCORE|ALL|GAME|YN",
      stat: "BOTHTEAMSTOSCORE",
      period: "GAME",
      betType: "YN",
      group: "special",
      opensHoursBefore: 72,
      sides: () => [
        { entity: "ALL", side: "YES", probability: both },
        { entity: "ALL", side: "NO", probability: 1 - both },
      ],
    });
  }
  for (const team of [event.home, event.away]) {
    for (const player of team.players) models.push(...playerMarketModels(seed, event, player));
  }
  models.push(...teamPlayerMarketModels(seed, event));
  return models;
}

function normalOutlookForInnings(mean: number, sd: number): Outlook {
  return normalOutlook(0, 1, mean, sd);
}

function poissonTeam(mean: number): Outlook {
  return poissonOutlook(Math.max(0.05, mean), 0, 0, 0);
}
