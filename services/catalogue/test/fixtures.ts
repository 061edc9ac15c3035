import type { catalogue } from "@odds/proto";

type Cycle = Partial<catalogue.ApplyCatalogueRequest>;
type EventMarkets = catalogue.EventMarkets;

export const sports = [
  { sportId: "AUSSIE_RULES", name: "Aussie Rules", shortName: "AFL" },
  { sportId: "RUGBY_LEAGUE", name: "Rugby League", shortName: "RL" },
  { sportId: "SOCCER", name: "Soccer", shortName: "SOC" },
];

export const leagues = [
  { leagueId: "AFL", sportId: "AUSSIE_RULES", name: "Australian Football League", shortName: "AFL" },
  { leagueId: "NRL", sportId: "RUGBY_LEAGUE", name: "National Rugby League", shortName: "NRL" },
  { leagueId: "EPL", sportId: "SOCCER", name: "English Premier League", shortName: "EPL" },
];

function team(
  teamId: string,
  sportId: string,
  leagueId: string,
  longName: string,
  statEntityId: string,
  colored = true,
) {
  return {
    teamId,
    sportId,
    leagueId,
    longName,
    mediumName: longName.split(" ")[0] ?? longName,
    shortName: longName.slice(0, 3).toUpperCase(),
    primaryColor: colored ? "#112233" : "",
    secondaryColor: colored ? "#ffffff" : "",
    primaryContrastColor: colored ? "#ffffff" : "",
    secondaryContrastColor: "",
    statEntityId,
  };
}

export const teams = [
  team("SYDNEY_SWANS_AFL", "AUSSIE_RULES", "AFL", "Sydney Swans", "home"),
  team("GEELONG_CATS_AFL", "AUSSIE_RULES", "AFL", "Geelong Cats", "away", false),
  team("RICHMOND_TIGERS_AFL", "AUSSIE_RULES", "AFL", "Richmond Tigers", "home"),
  team("CARLTON_BLUES_AFL", "AUSSIE_RULES", "AFL", "Carlton Blues", "away"),
  team("PENRITH_PANTHERS_NRL", "RUGBY_LEAGUE", "NRL", "Penrith Panthers", "home"),
  team("MELBOURNE_STORM_NRL", "RUGBY_LEAGUE", "NRL", "Melbourne Storm", "away"),
  team("ARSENAL_EPL", "SOCCER", "EPL", "Arsenal", "home"),
  team("CHELSEA_EPL", "SOCCER", "EPL", "Chelsea", "away"),
];

export const EVENTS = {
  swansCats: "AFL_2026-11-02_sydney_swans_vs_geelong_cats",
  tigersBlues: "AFL_2026-11-03_richmond_tigers_vs_carlton_blues",
  pantherStorm: "NRL_2026-11-02_penrith_panthers_vs_melbourne_storm",
  arsenalChelsea: "EPL_2026-11-02_arsenal_vs_chelsea",
};

export const players = [
  {
    playerId: "ISAAC_HEENEY_1_AFL",
    teamId: "SYDNEY_SWANS_AFL",
    sportId: "AUSSIE_RULES",
    leagueId: "AFL",
    name: "Isaac Heeney",
    firstName: "Isaac",
    lastName: "Heeney",
    position: "Midfielder",
    jerseyNumber: 5,
    eventIds: [EVENTS.swansCats],
  },
  {
    playerId: "JEREMY_CAMERON_1_AFL",
    teamId: "GEELONG_CATS_AFL",
    sportId: "AUSSIE_RULES",
    leagueId: "AFL",
    name: "Jeremy Cameron",
    firstName: "Jeremy",
    lastName: "Cameron",
    position: "",
    jerseyNumber: undefined,
    eventIds: [EVENTS.swansCats],
  },
  {
    playerId: "PATRICK_CRIPPS_1_AFL",
    teamId: "CARLTON_BLUES_AFL",
    sportId: "AUSSIE_RULES",
    leagueId: "AFL",
    name: "Patrick Cripps",
    firstName: "Patrick",
    lastName: "Cripps",
    position: "Midfielder",
    jerseyNumber: 9,
    eventIds: [EVENTS.tigersBlues],
  },
  {
    playerId: "NATHAN_CLEARY_1_NRL",
    teamId: "PENRITH_PANTHERS_NRL",
    sportId: "RUGBY_LEAGUE",
    leagueId: "NRL",
    name: "Nathan Cleary",
    firstName: "Nathan",
    lastName: "Cleary",
    position: "Halfback",
    jerseyNumber: 7,
    eventIds: [EVENTS.pantherStorm],
  },
];

export const stats = [
  {
    statId: "points",
    levelAll: true,
    levelTeam: true,
    levelPlayer: false,
    displayShort: "PTS",
    displayLong: "Points",
    sportIds: ["AUSSIE_RULES", "RUGBY_LEAGUE", "SOCCER"],
  },
  {
    statId: "disposals",
    levelAll: false,
    levelTeam: false,
    levelPlayer: true,
    displayShort: "DISP",
    displayLong: "Disposals",
    sportIds: ["AUSSIE_RULES"],
  },
  {
    statId: "tries",
    levelAll: true,
    levelTeam: false,
    levelPlayer: true,
    displayShort: "TRY",
    displayLong: "Tries",
    sportIds: ["RUGBY_LEAGUE"],
  },
];

/** oddID -> bookmakers pricing it. */
type Priced = Record<string, string[]>;

export function eventMarkets(eventId: string, leagueId: string, active: boolean, priced: Priced): EventMarkets {
  const sportId = leagues.find((league) => league.leagueId === leagueId)!.sportId;
  return {
    eventId,
    sportId,
    leagueId,
    active,
    markets: Object.entries(priced).map(([oddId, bookmakerIds]) => ({
      oddId,
      marketName: "",
      playerId: oddId.includes("_1_") ? oddId.split("-")[1]! : "",
      teamId: "",
      bookmakerIds,
    })),
  };
}

export const mainAfl: Priced = {
  "points-home-game-ml-home": ["sportsbet", "tab"],
  "points-away-game-ml-away": ["sportsbet", "tab"],
  "points-home-game-sp-home": ["tab"],
  "points-away-game-sp-away": ["tab"],
  "points-all-game-ou-over": ["sportsbet", "tab", "ladbrokes"],
  "points-all-game-ou-under": ["sportsbet", "tab", "ladbrokes"],
  "points-all-1q-ou-over": ["tab"],
  "points-all-1q-ou-under": ["tab"],
  "points-home-game-ou-over": ["ladbrokes"],
};

/** The full first cycle: four active events in three leagues. */
export function firstCycle(): Cycle {
  return {
    cycleId: "cycle-1",
    sports,
    leagues,
    teams,
    players,
    stats,
    events: [
      eventMarkets(EVENTS.swansCats, "AFL", true, {
        ...mainAfl,
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-over": ["sportsbet"],
        "disposals-ISAAC_HEENEY_1_AFL-game-ou-under": ["sportsbet"],
        "disposals-JEREMY_CAMERON_1_AFL-game-ou-over": ["tab"],
        // Listed but no bookmaker prices it: not supported.
        "goals-all-game-eo-odd": [],
      }),
      eventMarkets(EVENTS.tigersBlues, "AFL", true, {
        ...mainAfl,
        "disposals-PATRICK_CRIPPS_1_AFL-game-ou-over": ["tab"],
      }),
      eventMarkets(EVENTS.pantherStorm, "NRL", true, {
        "points-home-game-ml-home": ["tab", "neds"],
        "points-away-game-ml-away": ["tab", "neds"],
        "tries-all-game-ou-over": ["neds"],
      }),
      eventMarkets(EVENTS.arsenalChelsea, "EPL", true, {
        "points-all-game-ml3way-draw": ["bet365"],
        "points-home-game-ml3way-home": ["bet365"],
      }),
    ],
  };
}
