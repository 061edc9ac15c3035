import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import type { FeedSource } from "./feed-source";
import type { UpstreamClientOptions } from "./http/upstream-client";
import type { SpendLedger } from "./spend/allowance";
import { SimulatedSource } from "./simulated/simulated-source";
import { SportsGameOddsSource } from "./sportsgameodds/sgo-source";
import { TheOddsApiSource } from "./the-odds-api/toa-source";

/** The committed defaults (services/ingest/sources.yaml), found from src/ and dist/ alike. */
export const DEFAULT_SOURCES_FILE = join(__dirname, "..", "..", "sources.yaml");

const MINUTE_MS = 60_000;

const common = {
  id: z.string().regex(/^[a-z0-9_-]+$/, "lower-case id"),
  rank: z.number().int(),
};

const leagueInfo = z.object({
  /** The feed's own league key, kept as it is. */
  leagueID: z.string().min(1),
  sportID: z.string().min(1),
  sportName: z.string().min(1),
  sportShortName: z.string().min(1),
  name: z.string().min(1),
  shortName: z.string().min(1),
});

/** Connection settings shared by the real sources. */
const upstream = {
  baseUrl: z.url(),
  /** Name of the environment variable that holds the key (the Helm chart fills it from a Secret). */
  apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name"),
  requestsPerMinute: z.number().min(0).default(0),
  timeoutMs: z.number().int().positive().default(15_000),
  maxAttempts: z.number().int().min(1).max(10).default(4),
  retryBaseDelayMs: z.number().int().min(0).default(1_000),
  retryMaxDelayMs: z.number().int().min(0).default(60_000),
};

const simulated = z.object({
  ...common,
  kind: z.literal("simulated"),
  lagSeconds: z.number().int().min(0).default(0),
  bookmakers: z.array(z.string().min(1)).min(1),
});

const sportsGameOdds = z.object({
  ...common,
  ...upstream,
  kind: z.literal("sportsgameodds"),
  /** The plan's objects (events returned) per month; 0 = unlimited. */
  objectsPerMonth: z.number().int().min(0).default(0),
  pageLimit: z.number().int().min(1).max(300).default(50),
  /** Only these bookmakers; empty = every bookmaker the feed carries. */
  bookmakers: z.array(z.string().min(1)).default([]),
  leagues: z.array(leagueInfo).min(1),
});

const theOddsApi = z.object({
  ...common,
  ...upstream,
  kind: z.literal("the-odds-api"),
  regions: z.string().default("au"),
  /** Credits spent at most per UTC day. */
  dailyBudget: z.number().int().min(0),
  mainEveryMinutes: z.number().min(0).default(5),
  eventPolling: z
    .array(z.object({ withinHours: z.number().positive(), everyMinutes: z.number().min(0) }))
    .min(1)
    .default([
      { withinHours: 3, everyMinutes: 0 },
      { withinHours: 24, everyMinutes: 30 },
      { withinHours: 168, everyMinutes: 180 },
    ]),
  kickoffToleranceMinutes: z.number().min(0).default(30),
  /** Their bookmaker key -> our bookmakerID. */
  bookmakers: z.record(z.string(), z.string().min(1)),
  exchanges: z.array(z.string()).default([]),
  periods: z.record(z.string(), z.string()).default({ q1: "1q", q2: "2q", q3: "3q", q4: "4q", h1: "1h", h2: "2h" }),
  playerMarkets: z.record(z.string(), z.object({ stat: z.string().min(1), betType: z.enum(["ou", "yn"]) })).default({}),
  leagues: z
    .array(leagueInfo.extend({ sportKey: z.string().min(1), eventMarkets: z.array(z.string()).default([]) }))
    .min(1),
  aliases: z
    .object({
      teams: z.record(z.string(), z.string()).default({}),
      players: z.record(z.string(), z.string()).default({}),
    })
    .default({ teams: {}, players: {} }),
});

const sourcesFileSchema = z.object({
  sources: z
    .array(z.discriminatedUnion("kind", [simulated, sportsGameOdds, theOddsApi]))
    .min(1)
    .refine((list) => new Set(list.map((s) => s.id)).size === list.length, "source ids must be unique"),
});

type UpstreamEntry = z.output<typeof sportsGameOdds> | z.output<typeof theOddsApi>;

export interface SimulationSettings {
  seed: string;
  quietLeagues: string[];
  quietSince?: Date;
  /** How far ahead events are listed (days); 7 by default. */
  horizonDays?: number;
  /** Open every market at least this long before kickoff (days); unset: each market's own opening. */
  marketsOpenDays?: number;
}

/** What the real sources need from the process: their keys, the spend store, and hooks for logs and metrics. */
export interface UpstreamWiring {
  env: Record<string, string | undefined>;
  /** The ingest store's record of plan spend; sources with a budget or monthly limit need it. */
  spendLedger?: SpendLedger;
  onFetchError?(sourceID: string, what: string, err: unknown): void;
  onRetry?(sourceID: string, reason: string, delayMs: number, attempt: number): void;
  onAnswer?(sourceID: string, status: number, headers: Headers): void;
}

/** Reads the sources file and builds one adapter per entry. Fails naming the file and the problem. */
export function loadSources(
  path: string,
  simulation: SimulationSettings,
  wiring: UpstreamWiring = { env: process.env },
): FeedSource[] {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read sources file ${path}: ${(err as Error).message}`);
  }
  const parsed = sourcesFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid sources file ${path}: ${problems}`);
  }
  return parsed.data.sources.map((source): FeedSource => {
    switch (source.kind) {
      case "simulated":
        return new SimulatedSource({
          id: source.id,
          rank: source.rank,
          seed: simulation.seed,
          bookmakers: source.bookmakers,
          lagSeconds: source.lagSeconds,
          quietLeagues: simulation.quietLeagues,
          quietSince: simulation.quietSince,
          horizonDays: simulation.horizonDays,
          marketsOpenDays: simulation.marketsOpenDays,
        });
      case "sportsgameodds":
        return new SportsGameOddsSource({
          id: source.id,
          rank: source.rank,
          baseUrl: source.baseUrl,
          apiKey: apiKey(path, source, wiring),
          leagues: source.leagues,
          pageLimit: source.pageLimit,
          objectsPerMonth: source.objectsPerMonth,
          spendLedger: source.objectsPerMonth > 0 ? spendLedger(path, source, wiring) : wiring.spendLedger,
          bookmakers: source.bookmakers,
          http: httpOptions(source, wiring),
          onFetchError: (leagueID, err) => wiring.onFetchError?.(source.id, `league ${leagueID}`, err),
        });
      case "the-odds-api":
        return new TheOddsApiSource({
          id: source.id,
          rank: source.rank,
          baseUrl: source.baseUrl,
          apiKey: apiKey(path, source, wiring),
          regions: source.regions,
          bookmakers: source.bookmakers,
          exchanges: source.exchanges,
          leagues: source.leagues,
          markets: { periods: source.periods, playerMarkets: source.playerMarkets },
          dailyBudget: source.dailyBudget,
          spendLedger: spendLedger(path, source, wiring),
          mainEveryMs: source.mainEveryMinutes * MINUTE_MS,
          eventPolling: source.eventPolling.map((s) => ({
            withinMs: s.withinHours * 60 * MINUTE_MS,
            everyMs: s.everyMinutes * MINUTE_MS,
          })),
          nameMatching: {
            kickoffToleranceMs: source.kickoffToleranceMinutes * MINUTE_MS,
            teamAliases: source.aliases.teams,
            playerAliases: source.aliases.players,
          },
          http: httpOptions(source, wiring),
          onFetchError: (what, err) => wiring.onFetchError?.(source.id, what, err),
        });
    }
  });
}

function apiKey(path: string, source: UpstreamEntry, wiring: UpstreamWiring): string {
  const key = wiring.env[source.apiKeyEnv];
  if (!key) throw new Error(`sources file ${path}: source ${source.id} needs its key in ${source.apiKeyEnv}`);
  return key;
}

function spendLedger(path: string, source: UpstreamEntry, wiring: UpstreamWiring): SpendLedger {
  if (!wiring.spendLedger) {
    throw new Error(
      `sources file ${path}: source ${source.id} has a plan budget, kept across restarts in the ingest store: set INGEST_MONGODB_URI`,
    );
  }
  return wiring.spendLedger;
}

function httpOptions(source: UpstreamEntry, wiring: UpstreamWiring): UpstreamClientOptions {
  return {
    timeoutMs: source.timeoutMs,
    maxAttempts: source.maxAttempts,
    baseDelayMs: source.retryBaseDelayMs,
    maxDelayMs: source.retryMaxDelayMs,
    requestsPerMinute: source.requestsPerMinute,
    onAnswer: (status, headers) => wiring.onAnswer?.(source.id, status, headers),
    onRetry: (reason, delayMs, attempt) => wiring.onRetry?.(source.id, reason, delayMs, attempt),
  };
}
