// The player markets Australian books offer, per sport and role, and the player results that
// settle them. One table serves both, so every market priced has a result to be graded on.
import type { FixturePlayer, PlayerRole } from "./fixtures";
import type { MarketModel, SideProbability } from "./markets";
import { normalCdf, normal, poisson, unit } from "./random";
import { playerIDIn } from "./match";
import type { ScheduledEvent } from "./schedule";

/**
 * How a stat is distributed over a game: a normal count (disposals, runs), a Poisson count (goals,
 * marks, tackles, wickets, cards) or a one-off yes/no (the first try of the match).
 */
type Distribution = { kind: "normal"; sd: number } | { kind: "poisson" } | { kind: "once" };

interface PlayerStat {
  statID: string;
  mean: number;
  distribution: Distribution;
  /** Over/under line (with an alternate ladder of lineStep) and/or an anytime yes/no. */
  markets: Array<"OU" | "YN">;
  lineStep?: number;
}

const line = (statID: string, mean: number, sd: number, lineStep: number): PlayerStat => ({
  statID,
  mean,
  distribution: { kind: "normal", sd },
  markets: ["OU"],
  lineStep,
});
const count = (statID: string, mean: number, markets: Array<"OU" | "YN"> = ["OU"]): PlayerStat => ({
  statID,
  mean,
  distribution: { kind: "poisson" },
  markets,
  lineStep: 1,
});

/** Per sport and role: what a player is priced on and his expected game. */
const PLAYER_STATS: Record<string, Partial<Record<PlayerRole, PlayerStat[]>>> = {
  AUSSIE_RULES: {
    // Disposals and marks/tackles lines, goals lines and anytime goal kicker.
    midfielder: [line("disposals", 26, 5.5, 5), count("goals", 0.55, ["YN"]), count("tackles", 5.2)],
    forward: [line("disposals", 14, 4.5, 5), count("goals", 1.9, ["YN", "OU"]), count("marks", 5.5)],
    back: [line("disposals", 19, 4.5, 5), count("marks", 6.2)],
  },
  RUGBY_LEAGUE: {
    // Anytime and first try scorer.
    back: [
      count("tries", 0.5, ["YN"]),
      { statID: "firsttryscorer", mean: 0.5, distribution: { kind: "once" }, markets: ["YN"] },
    ],
    forward: [
      count("tries", 0.18, ["YN"]),
      { statID: "firsttryscorer", mean: 0.18, distribution: { kind: "once" }, markets: ["YN"] },
    ],
  },
  SOCCER: {
    // Anytime goalscorer, shots on target, to be carded, keeper saves.
    keeper: [count("saves", 3)],
    back: [count("goals", 0.06, ["YN"]), count("cards", 0.22, ["YN"])],
    midfielder: [count("goals", 0.2, ["YN"]), count("shotsontarget", 0.8), count("cards", 0.2, ["YN"])],
    forward: [count("goals", 0.42, ["YN"]), count("shotsontarget", 1.3), count("cards", 0.12, ["YN"])],
  },
  CRICKET: {
    // Runs and wickets lines; top team batter is a pick market over the batters (teamPlayerModels).
    batter: [line("points", 27, 20, 10)],
    bowler: [count("wickets", 1.3)],
  },
};

/** Expected tries of a whole match, for the chance that a player scores its first. */
const MATCH_TRIES = 7.5;

function statsOf(seed: string, event: ScheduledEvent, player: FixturePlayer): PlayerStat[] {
  const form = 1 + 0.3 * (unit(seed, "player-form", event.league.leagueID, player.name) - 0.5);
  return (PLAYER_STATS[event.league.sportID]?.[player.role] ?? []).map((stat) => ({
    ...stat,
    mean: stat.distribution.kind === "once" ? (stat.mean * form) / MATCH_TRIES : stat.mean * form,
  }));
}

/** Expected value of each of a player's prop stats, before the game. */
export function playerExpectations(seed: string, event: ScheduledEvent, player: FixturePlayer): Record<string, number> {
  return Object.fromEntries(statsOf(seed, event, player).map((stat) => [stat.statID, stat.mean]));
}

/** A player's stats at full time, before team totals cap goals and tries (see match.ts). */
export function playerResult(seed: string, event: ScheduledEvent, player: FixturePlayer): Record<string, number> {
  const out: Record<string, number> = {};
  for (const stat of statsOf(seed, event, player)) {
    const key = [seed, "player-result", event.eventID, player.name, stat.statID] as const;
    // The first try is settled over the whole match (settleFirstTryScorer), not per player.
    if (stat.distribution.kind === "once") out[stat.statID] = 0;
    else if (stat.distribution.kind === "normal")
      out[stat.statID] = Math.max(0, Math.round(stat.mean + normal(...key) * stat.distribution.sd));
    else out[stat.statID] = poisson(stat.mean, ...key);
  }
  return out;
}

/**
 * First try scorer: one of the players who scored, drawn in proportion to their tries (the
 * feed does not carry the order of tries). Players of an event without a try all get 0.
 */
export function settleFirstTryScorer(
  seed: string,
  event: ScheduledEvent,
  gameResults: Record<string, Record<string, number>>,
): void {
  const scorers = Object.entries(gameResults).filter(([, stats]) => "firsttryscorer" in stats);
  const tries = scorers.reduce((sum, [, stats]) => sum + (stats.tries ?? 0), 0);
  if (tries === 0) return;
  let pick = unit(seed, "first-try", event.eventID) * tries;
  for (const [, stats] of scorers) {
    pick -= stats.tries ?? 0;
    if (pick < 0) {
      stats.firsttryscorer = 1;
      return;
    }
  }
}

const halfLine = (x: number) => Math.floor(x) + 0.5;

function poissonAbove(mean: number, threshold: number): number {
  let term = Math.exp(-mean);
  let below = 0;
  for (let k = 0; k <= threshold; k++) {
    below += term;
    term *= mean / (k + 1);
  }
  return Math.max(0, 1 - below);
}

function overUnder(stat: PlayerStat, entity: string, at: number): SideProbability[] {
  const over =
    stat.distribution.kind === "normal"
      ? 1 - normalCdf((at - stat.mean) / stat.distribution.sd)
      : poissonAbove(stat.mean, Math.floor(at));
  return [
    { entity, side: "OVER", probability: over, line: at },
    { entity, side: "UNDER", probability: 1 - over, line: at },
  ];
}

/** Player markets do not move with the clock, and every book prices them at several instants a cycle. */
const modelsByPlayer = new Map<string, MarketModel[]>();
/**
 * The players of the events being generated (a cycle's one at a time, a backfill window's few dozen):
 * 50,000 held every event's models between cycles, ~40 MB of ingest's standing heap (docs/performance.md "Ingest
 * memory").
 */
const PLAYER_MODELS_HELD = 5_000;

/** Every market on one player, with true probabilities. */
export function playerMarketModels(seed: string, event: ScheduledEvent, player: FixturePlayer): MarketModel[] {
  const key = `${seed}|${event.eventID}|${player.name}`;
  let models = modelsByPlayer.get(key);
  if (!models) {
    if (modelsByPlayer.size > PLAYER_MODELS_HELD) modelsByPlayer.clear();
    models = buildPlayerModels(seed, event, player);
    modelsByPlayer.set(key, models);
  }
  return models;
}

function buildPlayerModels(seed: string, event: ScheduledEvent, player: FixturePlayer): MarketModel[] {
  const entity = playerIDIn(event.league.leagueID, player);
  const models: MarketModel[] = [];
  for (const stat of statsOf(seed, event, player)) {
    const common = {
      stat: stat.statID.toUpperCase(),
      period: "GAME",
      group: "player" as const,
      opensHoursBefore: 36,
      playerName: player.name,
    };
    const key = `${common.stat}|${entity}|GAME`;
    for (const market of stat.markets) {
      if (market === "YN") {
        const yes = stat.distribution.kind === "once" ? stat.mean : 1 - Math.exp(-stat.mean);
        models.push({
          ...common,
          key: `${key}|YN`,
          betType: "YN",
          sides: () => [
            { entity, side: "YES", probability: yes },
            { entity, side: "NO", probability: 1 - yes },
          ],
        });
      } else {
        // Counts below ~1.2 are quoted at 0.5 (one or more); the rest around the mean.
        const mainLine =
          stat.distribution.kind === "normal"
            ? halfLine(stat.mean)
            : stat.mean >= 1.2
              ? halfLine(stat.mean - 0.5)
              : 0.5;
        models.push({
          ...common,
          key: `${key}|OU`,
          betType: "OU",
          mainLine,
          lineStep: stat.lineStep ?? 1,
          sides: (at = mainLine) => overUnder(stat, entity, at),
        });
      }
    }
  }
  return models;
}

/** Markets across a team's players: top team batter (cricket), a pick over that side's batters. */
export function teamPlayerMarketModels(seed: string, event: ScheduledEvent): MarketModel[] {
  if (event.league.sportID !== "CRICKET") return [];
  const models: MarketModel[] = [];
  for (const [side, team] of [
    ["HOME", event.home],
    ["AWAY", event.away],
  ] as const) {
    const batters = team.players.filter((player) => player.role === "batter");
    // The chance of top-scoring grows faster than the expected runs: weight by their cube.
    const weights = batters.map((player) => (playerExpectations(seed, event, player).points ?? 0) ** 3);
    const sum = weights.reduce((a, b) => a + b, 0) || 1;
    models.push({
      key: `POINTS|${side}|GAME|PICK`,
      stat: "POINTS",
      period: "GAME",
      betType: "PICK",
      group: "player",
      opensHoursBefore: 36,
      sides: () =>
        batters.map((player, i) => ({
          entity: side,
          side: playerIDIn(event.league.leagueID, player),
          probability: (weights[i] ?? 0) / sum,
        })),
    });
  }
  return models;
}
