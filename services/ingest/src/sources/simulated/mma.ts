// Mixed martial arts in the simulated feed: a promotion's weekly card of fights between two
// fighters (competitor_1 is the feed's HOME), three rounds of five minutes, five for the main
// event. Results carry the winner (points 1), the method (ko, submission or decision: 1 for the
// winner), the fight time in rounds (rounds: 2.4 = two minutes into round 3) and whether it went
// the distance (distance 1). A draw has no winner.
import type { CompetitorSport } from "./competitors";
import { startingProbability, unitWinProbability, winnerModel } from "./duel";
import type { FixtureLeague, FixtureTeam } from "./fixtures";
import type { MarketModel } from "./markets";
import type { MatchState } from "./match";
import { unit } from "./random";
import type { ScheduledEvent } from "./schedule";

const ROUND_MIN = 5;
const ROUND_BREAK_MIN = 1;
const FIGHT_SCALE = 1.3;
const DRAW_PROBABILITY = 0.01;
const KO_SHARE_OF_FINISHES = 0.62;
export type FinishMethod = "ko" | "submission" | "decision";

const fighter = (long: string, medium: string, short: string): FixtureTeam => ({
  long,
  medium,
  short,
  colors: ["#D20A0A", "#000000"],
  players: [],
});

function scheduledRounds(event: ScheduledEvent): number {
  const mainEvent = event.league.slots.at(-1)?.[1];
  return new Date(event.startsAtMs).toISOString().slice(11, 16) === mainEvent ? 5 : 3;
}

/** Share of fights that go the distance, and how the finishes spread over the rounds. */
function fightShape(rounds: number): { decision: number; finishRounds: number[] } {
  return rounds === 5
    ? { decision: 0.38, finishRounds: [0.3, 0.25, 0.2, 0.15, 0.1] }
    : { decision: 0.48, finishRounds: [0.45, 0.33, 0.22] };
}

interface Fight {
  winner: "home" | "away" | "draw";
  method: FinishMethod;
  /** Fight time in rounds: round r, m minutes in = r - 1 + m / 5; the scheduled rounds at a decision. */
  rounds: number;
}

function fightOf(seed: string, event: ScheduledEvent): Fight {
  const scheduled = scheduledRounds(event);
  const shape = fightShape(scheduled);
  const p = startingProbability(seed, event, FIGHT_SCALE);
  const key = [seed, "fight", event.eventID] as const;
  if (unit(...key, "draw") < DRAW_PROBABILITY) return { winner: "draw", method: "decision", rounds: scheduled };
  const winner = unit(...key, "winner") < p ? "home" : "away";
  if (unit(...key, "finish") < shape.decision) return { winner, method: "decision", rounds: scheduled };
  const method = unit(...key, "method") < KO_SHARE_OF_FINISHES ? "ko" : "submission";
  let roll = unit(...key, "round");
  let round = 1;
  for (const weight of shape.finishRounds) {
    if (roll < weight) break;
    roll -= weight;
    round++;
  }
  round = Math.min(round, scheduled);
  const into = 0.05 + 0.95 * unit(...key, "time");
  return { winner, method, rounds: Math.round((round - 1 + into) * 100) / 100 };
}

/** Minutes from the start to the end of the fight, round breaks included. */
function fightMinutes(fight: Fight): number {
  const round = Math.ceil(fight.rounds);
  return (round - 1) * (ROUND_MIN + ROUND_BREAK_MIN) + (fight.rounds - (round - 1)) * ROUND_MIN;
}

const models: CompetitorSport["models"] = (seed, event, atMs, state, mainOnly) => {
  const p = unitWinProbability(seed, event, atMs, FIGHT_SCALE);
  const markets: MarketModel[] = [winnerModel(p, 168)];
  if (state.phase === "live") return markets;
  const scheduled = scheduledRounds(event);
  const shape = fightShape(scheduled);
  const finish = 1 - shape.decision;
  const methods: Array<[FinishMethod, number]> = [
    ["ko", finish * KO_SHARE_OF_FINISHES],
    ["submission", finish * (1 - KO_SHARE_OF_FINISHES)],
    ["decision", shape.decision],
  ];
  const line = scheduled - 0.5;
  // Over a line: a decision, or a finish later in the fight than the line.
  const over = (l: number) =>
    (l < scheduled ? shape.decision : 0) +
    finish * shape.finishRounds.reduce((sum, w, i) => sum + w * Math.min(1, Math.max(0, i + 1 - l)), 0);
  const common = { period: "GAME", group: "special" as const, opensHoursBefore: 144 };
  // Method of victory is a headline market of MMA: priced wherever the fight winner is (it has no lines).
  markets.push({
    ...common,
    group: "main",
    key: "METHOD|ALL|GAME|PICK",
    stat: "METHOD",
    betType: "PICK",
    sides: () =>
      (["HOME", "AWAY"] as const).flatMap((side) =>
        methods.map(([method, share]) => ({
          entity: "ALL",
          side: `${side}_${method.toUpperCase()}`,
          probability: (side === "HOME" ? p : 1 - p) * share,
        })),
      ),
  });
  if (mainOnly) return markets;
  markets.push(
    {
      ...common,
      key: "ROUNDS|ALL|GAME|OU",
      stat: "ROUNDS",
      betType: "OU",
      mainLine: line,
      lineStep: 1,
      sides: (l = line) => [
        { entity: "ALL", side: "OVER", probability: over(l), line: l },
        { entity: "ALL", side: "UNDER", probability: 1 - over(l), line: l },
      ],
    },
    {
      ...common,
      key: "DISTANCE|ALL|GAME|YN",
      stat: "DISTANCE",
      betType: "YN",
      sides: () => [
        { entity: "ALL", side: "YES", probability: shape.decision + DRAW_PROBABILITY },
        { entity: "ALL", side: "NO", probability: 1 - shape.decision - DRAW_PROBABILITY },
      ],
    },
  );
  return markets;
};

/** Rounds started and ended; the result once the fight is over. */
function stateAt(seed: string, event: ScheduledEvent, base: MatchState): MatchState {
  const fight = fightOf(seed, event);
  const state: MatchState = { ...base, periodsStarted: [], periodsEnded: [], results: {} };
  const over = base.phase === "ended" || base.phase === "final";
  for (let round = 1; round <= Math.ceil(fight.rounds); round++) {
    const startMin = (round - 1) * (ROUND_MIN + ROUND_BREAK_MIN);
    if (base.elapsedMin < startMin) break;
    state.periodsStarted.push(`${round}r`);
    if (over || base.elapsedMin >= startMin + ROUND_MIN) state.periodsEnded.push(`${round}r`);
  }
  if (base.phase === "live") state.currentPeriodID = state.periodsStarted.at(-1);
  const points = (side: "home" | "away") => (over && fight.winner === side ? 1 : 0);
  const method = (side: "home" | "away") => (points(side) === 1 ? { [fight.method]: 1 } : {});
  state.results.game = {
    HOME: { points: points("home"), ...method("home") },
    AWAY: { points: points("away"), ...method("away") },
    ...(over ? { ALL: { rounds: fight.rounds, distance: fight.method === "decision" ? 1 : 0 } } : {}),
  };
  state.homeScore = points("home");
  state.awayScore = points("away");
  return state;
}

const UFC: FixtureLeague = {
  leagueID: "UFC",
  sportID: "MMA",
  name: "Ultimate Fighting Championship",
  shortName: "UFC",
  prefix: "ufc",
  // Saturday-night cards in the Americas: early Sunday UTC, the main event last.
  slots: [
    [0, "01:00"],
    [0, "01:30"],
    [0, "02:00"],
    [0, "02:30"],
    [0, "03:00"],
  ],
  teams: [
    fighter("Islam Makhachev", "Makhachev", "MAK"),
    fighter("Arman Tsarukyan", "Tsarukyan", "TSA"),
    fighter("Charles Oliveira", "Oliveira", "OLI"),
    fighter("Justin Gaethje", "Gaethje", "GAE"),
    fighter("Dustin Poirier", "Poirier", "POI"),
    fighter("Max Holloway", "Holloway", "HOL"),
    fighter("Dan Hooker", "Hooker", "HOO"),
    fighter("Mateusz Gamrot", "Gamrot", "GAM"),
    fighter("Beneil Dariush", "Dariush", "DAR"),
    fighter("Renato Moicano", "Moicano", "MOI"),
  ],
};

export const MMA: CompetitorSport = {
  sport: { sportID: "MMA", name: "Mixed Martial Arts", shortName: "MMA" },
  league: UFC,
  urlPath: "ufc",
  altLineStep: 1,
  durationMin: (seed, event) => fightMinutes(fightOf(seed, event)),
  stateAt,
  models,
};
