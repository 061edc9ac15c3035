// The bookmakers of the simulated feed: what they cover, how much margin they build in,
// how their prices are laddered and how they link to events and bet slips.
import type { MarketGroup } from "./markets";

export type BookmakerKind = "corporate" | "sharp" | "exchange";

export interface BookmakerProfile {
  bookmakerID: string;
  name: string;
  kind: BookmakerKind;
  /** Overround of a two-way main market, e.g. 1.055 = 105.5 %. */
  overround: number;
  groups: MarketGroup[];
  /** Leagues not covered. */
  skipsLeagues: string[];
  altLines: boolean;
  /** Publishes a bet limit (maxStake) per quote. */
  publishesLimits: boolean;
  /** Seconds before kickoff the bookmaker first prices an event, relative to the market's opening. */
  openLagHours: number;
  site: string;
  eventNameStyle: "v" | "vs" | "long";
  deeplinkParam: string;
  betslip: { kind: "deeplink" | "copy" | "none"; urlTemplate: string };
}

const ALL_GROUPS: MarketGroup[] = ["main", "period", "team", "special", "player"];

export const BOOKMAKERS: BookmakerProfile[] = [
  {
    bookmakerID: "sportsbet",
    name: "Sportsbet",
    kind: "corporate",
    overround: 1.055,
    groups: ALL_GROUPS,
    skipsLeagues: [],
    altLines: true,
    publishesLimits: false,
    openLagHours: 0,
    site: "https://www.sportsbet.com.au/betting",
    eventNameStyle: "v",
    deeplinkParam: "selectionId",
    betslip: { kind: "deeplink", urlTemplate: "https://www.sportsbet.com.au/betslip?selectionId={selectionID}" },
  },
  {
    bookmakerID: "tab",
    name: "TAB",
    kind: "corporate",
    overround: 1.065,
    groups: ALL_GROUPS,
    skipsLeagues: [],
    altLines: true,
    publishesLimits: false,
    openLagHours: 6,
    site: "https://www.tab.com.au/sports/betting",
    eventNameStyle: "v",
    deeplinkParam: "propositionId",
    betslip: { kind: "deeplink", urlTemplate: "https://www.tab.com.au/betslip?propositionId={selectionID}" },
  },
  {
    bookmakerID: "ladbrokes_au",
    name: "Ladbrokes",
    kind: "corporate",
    overround: 1.06,
    groups: ALL_GROUPS,
    skipsLeagues: [],
    altLines: true,
    publishesLimits: false,
    openLagHours: 2,
    site: "https://www.ladbrokes.com.au/sports",
    eventNameStyle: "vs",
    deeplinkParam: "entrantId",
    betslip: { kind: "deeplink", urlTemplate: "https://www.ladbrokes.com.au/betslip?entrantId={selectionID}" },
  },
  {
    bookmakerID: "neds",
    name: "Neds",
    kind: "corporate",
    overround: 1.06,
    groups: ALL_GROUPS,
    skipsLeagues: [],
    altLines: true,
    publishesLimits: false,
    openLagHours: 2,
    site: "https://www.neds.com.au/sports",
    eventNameStyle: "vs",
    deeplinkParam: "entrantId",
    betslip: { kind: "deeplink", urlTemplate: "https://www.neds.com.au/betslip?entrantId={selectionID}" },
  },
  {
    bookmakerID: "pointsbet_au",
    name: "PointsBet",
    kind: "corporate",
    overround: 1.05,
    groups: ["main", "period", "team", "player"],
    skipsLeagues: [],
    altLines: false,
    publishesLimits: false,
    openLagHours: 12,
    site: "https://pointsbet.com.au/sports",
    eventNameStyle: "v",
    deeplinkParam: "outcomeKey",
    betslip: { kind: "copy", urlTemplate: "" },
  },
  {
    bookmakerID: "betr",
    name: "Betr",
    kind: "corporate",
    overround: 1.05,
    groups: ["main", "period", "player"],
    skipsLeagues: ["IPL"],
    altLines: false,
    publishesLimits: false,
    openLagHours: 18,
    site: "https://www.betr.com.au/sports",
    eventNameStyle: "v",
    deeplinkParam: "selection",
    betslip: { kind: "copy", urlTemplate: "" },
  },
  {
    bookmakerID: "bet365_au",
    name: "bet365",
    kind: "corporate",
    overround: 1.045,
    groups: ALL_GROUPS,
    skipsLeagues: [],
    altLines: true,
    publishesLimits: false,
    openLagHours: 4,
    site: "https://www.bet365.com.au/#/AC/B1",
    eventNameStyle: "v",
    deeplinkParam: "fi",
    betslip: { kind: "deeplink", urlTemplate: "https://www.bet365.com.au/dl/sportsbookredirect?bs={selectionID}" },
  },
  {
    bookmakerID: "unibet_au",
    name: "Unibet",
    kind: "corporate",
    overround: 1.055,
    groups: ["main", "period", "team", "special"],
    skipsLeagues: ["BBL"],
    altLines: false,
    publishesLimits: false,
    openLagHours: 8,
    site: "https://www.unibet.com.au/betting/sports",
    eventNameStyle: "vs",
    deeplinkParam: "coupon",
    betslip: {
      kind: "deeplink",
      urlTemplate: "https://www.unibet.com.au/betting/sports/bets?coupon=single|{selectionID}",
    },
  },
  {
    bookmakerID: "pinnacle",
    name: "Pinnacle",
    kind: "sharp",
    overround: 1.027,
    groups: ["main", "period", "team"],
    skipsLeagues: [],
    altLines: true,
    publishesLimits: true,
    openLagHours: 0,
    site: "https://www.pinnacle.com/en",
    eventNameStyle: "long",
    deeplinkParam: "selection",
    betslip: { kind: "none", urlTemplate: "" },
  },
  {
    bookmakerID: "betfair_ex_au",
    name: "Betfair Exchange",
    kind: "exchange",
    overround: 1.006,
    groups: ["main", "special"],
    skipsLeagues: [],
    altLines: false,
    publishesLimits: true,
    openLagHours: 24,
    site: "https://www.betfair.com.au/exchange/plus",
    eventNameStyle: "v",
    deeplinkParam: "selectionId",
    betslip: {
      kind: "deeplink",
      urlTemplate: "https://www.betfair.com.au/exchange/plus/?marketId={marketID}&selectionId={selectionID}",
    },
  },
];

/** Extra margin a market group carries over the main markets (per side beyond two for pick-N). */
export function overroundFor(profile: BookmakerProfile, group: MarketGroup, sideCount: number): number {
  const extra: Record<MarketGroup, number> = { main: 0, period: 0.012, team: 0.02, special: 0.025, player: 0.05 };
  const base = profile.overround - 1 + (profile.kind === "exchange" ? 0 : extra[group]);
  return 1 + base * Math.max(1, sideCount / 2);
}

const BETFAIR_LADDER: Array<[number, number]> = [
  [2, 0.01],
  [3, 0.02],
  [4, 0.05],
  [6, 0.1],
  [10, 0.2],
  [20, 0.5],
  [30, 1],
  [50, 2],
  [100, 5],
  [1000, 10],
];
const CORPORATE_LADDER: Array<[number, number]> = [
  [3, 0.01],
  [6, 0.05],
  [11, 0.1],
  [21, 0.5],
  [51, 1],
  [1000, 5],
];

function tickFor(ladder: Array<[number, number]>, price: number): number {
  // Indexed, not destructured: destructuring a step took an array iterator per step, for every price of a cycle.
  for (let i = 0; i < ladder.length; i++) {
    const step = ladder[i] as [number, number];
    if (price < step[0]) return step[1];
  }
  return 10;
}

/** Rounds a price down onto the bookmaker's price ladder (books round in their own favour). */
export function onLadder(profile: BookmakerProfile, price: number): number {
  const ladder = profile.kind === "exchange" ? BETFAIR_LADDER : CORPORATE_LADDER;
  const clamped = Math.min(501, Math.max(1.01, price));
  const tick = tickFor(ladder, clamped);
  return Math.max(1.01, Math.round(Math.floor(clamped / tick + 1e-9) * tick * 100) / 100);
}

/** The exchange's lay price: `ticks` steps up the ladder from the back price. */
export function layPrice(back: number, ticks: number): number {
  let price = back;
  for (let i = 0; i < ticks; i++) price = Math.round((price + tickFor(BETFAIR_LADDER, price)) * 100) / 100;
  return price;
}

export function bookmakerByID(bookmakerID: string): BookmakerProfile | undefined {
  return BOOKMAKERS.find((b) => b.bookmakerID === bookmakerID);
}
