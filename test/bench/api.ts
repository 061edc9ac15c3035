import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import {
  REPO_ROOT,
  SERVICE_NAMES,
  nodeFlagsFor,
  SERVICE_NICENESS,
  startStack,
  stopChild,
  type Interruption,
  type RunningStack,
  type ServiceName,
} from "@odds/local";
import { admittedPath, type BareBody } from "./bare-server";
import { apiRefusals, ratioTo, referenceFailures } from "./ratio";
import { spreadOrder, variantRounds } from "./cold-order";
import { coldSample, nextFirstPath } from "./cold-reference";
import { CpuSampler } from "./cpu-sampler";
import { runDirFor } from "./dataset-copy";
import { peakRssMb } from "./peak-rss";
import { deepenHistory, depthEndMs, writtenDepth } from "./history-depth";
import {
  DATASET_INGEST_ENV,
  datasetFingerprint,
  eventsAppliedAt,
  FreshnessProbe,
  historyFreshness,
  ingestCycles,
  historyTicks,
  unfinishedCycle,
  watchIngestLog,
  type IngestCycle,
} from "./ingest";
import type { LoadResult, LoadSpec } from "./load-worker";

/**
 * Every read route through the whole stack (the same launcher as `npm start`), loaded from a
 * separate autocannon process at 1, 16 and 64 connections: hot (one request repeated, identity and
 * gzip) and cold (a different query on every request). Beside each hot case a bare node:http
 * server answers that case's exact bytes from memory, and beside each cold window the answers of a
 * sample of the requests it sent, in turn: the machine's limit, in the same run.
 */

const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "1,16,64").split(",").map(Number);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
const SEED = process.env.BENCH_SEED ?? "bench-2026";
/**
 * How long the run waits, after the cases, for ingest's steady-state cycle: the second cycle done
 * after the stack served (the first after a start re-sends the whole world; 443 s at full scale).
 */
const CYCLE_WAIT_S = Number(process.env.BENCH_CYCLE_WAIT_S ?? 1200);
/**
 * Every window (the API's, the bare server's, the floor's) lasts BENCH_DURATION_S and then goes on until this many
 * answers completed, for at most BENCH_MAX_WINDOW_S: a p99 of the 80-odd answers a 36 MB page gets in 3 s is their
 * slowest one, and a multi-megabyte page during a cycle's writes may not complete ten.
 */
const MIN_ANSWERS = Number(process.env.BENCH_MIN_ANSWERS ?? 300);
const MAX_WINDOW_S = Number(process.env.BENCH_MAX_WINDOW_S ?? 30);
/** How long a window lasts: what every load spec the bench runs or writes carries. */
const WINDOW = { durationSeconds: DURATION_S, minAnswers: MIN_ANSWERS, maxDurationSeconds: MAX_WINDOW_S };
/** The paged history read's depth, and so the ticks the history cases' event should hold. */
const PAGED_TICKS = 50_000;
const RESULTS_DIR = join(REPO_ROOT, "test", "bench", "results");
const exec = promisify(execFile);

interface BenchCase {
  name: string;
  /** The hot request (path below the origin). */
  hot: string;
  /** Cold requests, one per request in turn; absent when the route has no cache-miss variant. */
  cold?: string[];
}

export interface CaseRow {
  case: string;
  mode: "hot" | "hot-gzip" | "cold";
  connections: number;
  responseBytes: number;
  api: LoadResult;
  bare?: LoadResult;
  /**
   * Cold rows: how many answers of the API's window the bare server served in turn, fetched again once the
   * window ended (`coldReference`); a hot row's bare server answers its one request.
   */
  referenceAnswers?: number;
  /** API req/s over the bare server's. */
  ratio?: number;
  /**
   * The bare server answering the same bytes after the edge's one Redis call per request (the rate-limit
   * script): the floor of a design that counts every request in Redis.
   */
  admitted?: LoadResult;
  /** That server's req/s over the bare server's: the most any such edge could reach of the ratio. */
  admittedRatio?: number;
  /** Each process's peak RSS (VmHWM, MB) once this case was measured: which case raised a peak. */
  peakRssMb?: Record<string, number | null>;
  /**
   * CPU ms per answered request each process of the stack used while the API's load ran (the load process and the
   * bare server are not the stack's): where a case's CPU goes. Includes whatever else ran then (an ingest cycle).
   */
  cpuMsPerRequest?: Record<string, number>;
  /** When the API's load ran (ISO instants), and whether an ingest cycle was under way during any of it. */
  window?: { from: string; to: string; duringCycle: boolean };
}

/** The content type the edge answers JSON with: what every bare server answers too. */
const JSON_TYPE = "application/json; charset=utf-8";

let specFile = "";

/** One load run of the case's window (`WINDOW`). */
function measure(spec: Omit<LoadSpec, keyof typeof WINDOW>, interruption: Interruption): Promise<LoadResult> {
  return runLoad({ ...spec, ...WINDOW }, interruption);
}

/** req/s, or what a window without a completed answer says instead of a rate of 0. */
function rate(result: LoadResult | undefined): string {
  if (result === undefined) return "";
  return result.requests === 0 ? `no request completed in ${result.windowSeconds} s` : fmt(result.requestsPerSecond);
}

/** A child process of the bench's own: stopped if the bench is interrupted, forgotten once it exits. */
function owned<Child extends ChildProcess>(child: Child, interruption: Interruption): Child {
  const forget = interruption.own(() => stopChild(child));
  child.once("exit", forget);
  return child;
}

function runLoad(spec: LoadSpec, interruption: Interruption): Promise<LoadResult> {
  writeFileSync(specFile, JSON.stringify(spec));
  return new Promise((resolve, reject) => {
    const child = owned(
      spawn(process.execPath, [join(__dirname, "load-worker.js"), specFile], { stdio: ["ignore", "pipe", "inherit"] }),
      interruption,
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load worker exited ${code}`)),
    );
  });
}

async function startBare(
  bodies: BareBody[],
  index: string,
  redisUrl: string,
  interruption: Interruption,
): Promise<{ origin: string; child: ChildProcess }> {
  writeFileSync(index, JSON.stringify(bodies));
  const child = owned(
    spawn(process.execPath, [join(__dirname, "bare-server.js"), index, redisUrl], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
    interruption,
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { origin: `http://127.0.0.1:${port}`, child };
}

/** The bare server's run (and the same behind the edge's Redis call) over these bodies in turn, as the API's was loaded. */
async function bareReference(
  bareOrigin: string,
  indices: number[],
  load: Pick<LoadSpec, "headers" | "connections">,
  interruption: Interruption,
): Promise<{ bare: LoadResult; admitted: LoadResult }> {
  const bare = await measure({ ...load, origin: bareOrigin, paths: indices.map((index) => `/${index}`) }, interruption);
  const admitted = await measure({ ...load, origin: bareOrigin, paths: indices.map(admittedPath) }, interruption);
  return { bare, admitted };
}

/**
 * A cold window's reference: the answers of a sample of the requests it sent (`coldSample`), asked again
 * once it ended (asked before, they would have warmed the caches it read), served by a bare server of their
 * own in turn. Undefined where none of them answered 200.
 */
async function coldReference(
  load: Omit<LoadSpec, keyof typeof WINDOW>,
  window: LoadResult,
  dir: string,
  redisUrl: string,
  interruption: Interruption,
): Promise<{ bare: LoadResult; admitted: LoadResult; answers: number } | undefined> {
  mkdirSync(dir, { recursive: true });
  const bodies: BareBody[] = [];
  for (const index of coldSample(window.firstPath, window.pathsSent, load.paths.length)) {
    const res = await fetch(`${load.origin}${load.paths[index]}`, { headers: load.headers });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!res.ok) continue;
    const file = join(dir, `${bodies.length}.json`);
    writeFileSync(file, bytes);
    bodies.push({ file, headers: { "content-type": JSON_TYPE } });
  }
  if (bodies.length === 0) return undefined;
  const server = await startBare(bodies, join(dir, "bodies.json"), redisUrl, interruption);
  try {
    const indices = bodies.map((_, index) => index);
    return { ...(await bareReference(server.origin, indices, load, interruption)), answers: bodies.length };
  } finally {
    await stopChild(server.child);
  }
}

async function getJson<T>(stack: RunningStack, path: string): Promise<T> {
  const res = await fetch(`${stack.baseUrl}${path}`, { headers: { "x-api-key": stack.apiKeys.internal } });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface EventItem {
  eventID: string;
  sportID: string;
  leagueID: string;
  status: { startsAt: string };
  odds?: Record<string, { byBookmaker?: Record<string, unknown> }>;
}

/** Every item a list route serves (internal key), page by page: `query` names the route and its page size. */
async function allItems<T>(stack: RunningStack, query: string): Promise<T[]> {
  const found: T[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const page: { data: T[]; nextCursor: string | null } = await getJson(
      stack,
      `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    found.push(...page.data);
    cursor = page.nextCursor;
  }
  return found;
}

/** Every event the API lists, 25 a page (a page of 100 deep events is tens of MB). */
function allEvents(stack: RunningStack): Promise<EventItem[]> {
  return allItems<EventItem>(stack, "/events/?limit=25&includeFinished=true");
}

/**
 * Cold `/teams/` requests: two teams at a time (an event's teams, as a client asks for them). Team n's
 * k-th pair is with team n + k + 1 (mod the count); below half the count, no two pairs are the same.
 */
async function teamPairs(stack: RunningStack, v2: string, count: number): Promise<string[]> {
  const ids = (await allItems<{ teamID: string }>(stack, "/teams/?limit=250")).map((team) => team.teamID);
  return variantRounds(
    ids.map((_, n) => n),
    () => Math.floor((ids.length - 1) / 2),
    (n, k) => `${v2}/teams/?teamID=${ids[n]},${ids[(n + k + 1) % ids.length]}`,
    count,
  );
}

/** How big the served world is: events, oddIDs per priced event, bookmakers and prices. */
function datasetShape(events: EventItem[]) {
  const priced = events.filter((event) => Object.keys(event.odds ?? {}).length > 0);
  let oddIDs = 0;
  let prices = 0;
  let bookmakers = 0;
  for (const event of priced) {
    const books = new Set<string>();
    for (const side of Object.values(event.odds ?? {})) {
      oddIDs += 1;
      for (const bookmakerID of Object.keys(side.byBookmaker ?? {})) {
        books.add(bookmakerID);
        prices += 1;
      }
    }
    bookmakers += books.size;
  }
  const per = (n: number) => (priced.length === 0 ? 0 : n / priced.length);
  return {
    events: events.length,
    withOdds: priced.length,
    oddIDsPerPricedEvent: per(oddIDs),
    bookmakersPerPricedEvent: per(bookmakers),
    prices,
  };
}

/** A distinct instant per cold request: the same answer, a query the cache has never seen. */
function distinctInstants(count: number): string[] {
  const base = Date.parse("2020-01-01T00:00:00Z");
  return Array.from({ length: count }, (_, n) => new Date(base + n * 1000).toISOString());
}

async function buildCases(stack: RunningStack, report: (line: string) => void): Promise<BenchCase[]> {
  const v2 = new URL(stack.baseUrl).pathname;
  const events = await allEvents(stack);
  if (events.length === 0) throw new Error("the dataset has no events");
  const ids = events.map((event) => event.eventID);
  const instants = distinctInstants(20_000);
  // The narrow request names two sides of an event (its `pair`th two) and two books of the first, so it
  // reads priced events only: an unpriced one has no oddID to name, and its request would be the whole event's.
  const narrowOf = (event: EventItem, pair = 0): string => {
    const oddIDs = Object.keys(event.odds ?? {}).slice(2 * pair, 2 * pair + 2);
    const books = Object.keys(event.odds?.[oddIDs[0] ?? ""]?.byBookmaker ?? {}).slice(0, 2);
    return `${v2}/events/?eventID=${event.eventID}&oddID=${oddIDs.join(",")}&bookmakerID=${books.join(",")}`;
  };
  const sidePairs = (event: EventItem) => Math.floor(Object.keys(event.odds ?? {}).length / 2);
  const priced = events.filter((event) => sidePairs(event) > 0);
  if (priced.length === 0) throw new Error("the dataset has no priced events");
  const fifty = (offset: number) =>
    Array.from({ length: Math.min(50, ids.length) }, (_, n) => ids[(offset + n) % ids.length]).join(",");

  const spreadIDs = spreadOrder(ids);

  const { historyEvent, most, from } = await historyCaseEvent(stack, events, report);
  return [
    {
      name: "events AFL limit 10",
      hot: `${v2}/events/?leagueID=AFL&limit=10`,
      cold: instants.map((at) => `${v2}/events/?leagueID=AFL&limit=10&startsAfter=${at}`),
    },
    {
      name: "events limit 100",
      hot: `${v2}/events/?limit=100`,
      cold: instants.map((at) => `${v2}/events/?limit=100&startsAfter=${at}`),
    },
    // Cold requests over events visit them in a spread order (cold-order.ts), not in serving order.
    {
      name: "events narrow (eventID+2 oddIDs+2 books)",
      hot: narrowOf(priced[0]!),
      cold: variantRounds(priced, sidePairs, narrowOf, 20_000),
    },
    {
      name: "events eventIDs=50 ids",
      hot: `${v2}/events/?eventIDs=${fifty(0)}`,
      cold: spreadOrder(ids.map((_, n) => `${v2}/events/?eventIDs=${fifty(n)}`)),
    },
    {
      name: `history limit 5000 (${most} ticks)`,
      hot: `${v2}/odds/history/?eventID=${historyEvent}&limit=5000${from}`,
      // Another event and page size each time (a from= before the event's window would be a 400).
      cold: Array.from(
        { length: 20_000 },
        (_, n) => `${v2}/odds/history/?eventID=${spreadIDs[n % ids.length]}&limit=${5000 - (n % 1000)}`,
      ),
    },
    {
      name: "markets limit 10000",
      hot: `${v2}/markets/?limit=10000`,
      cold: Array.from({ length: 1000 }, (_, n) => `${v2}/markets/?limit=${10_000 - n}`),
    },
    {
      name: "teams",
      hot: `${v2}/teams/`,
      cold: await teamPairs(stack, v2, 20_000),
    },
    { name: "sports", hot: `${v2}/sports/` },
    { name: "account/usage", hot: `${v2}/account/usage` },
  ];
}

/**
 * The history cases' event: the one with the most ticks across both tiers (from the stores' bucket
 * summaries); where it holds fewer than the paged read's 50,000, it is deepened once through
 * RecordQuotes and the archiver (history-depth.ts), and the cases read from the replay's start.
 */
async function historyCaseEvent(
  stack: RunningStack,
  events: EventItem[],
  report: (line: string) => void,
): Promise<{ historyEvent: string; most: number; from: string }> {
  const densest = (await historyTicks(stack)).byEvent[0];
  if (densest && densest.ticks >= PAGED_TICKS && !writtenDepth(stack.dataDir)) {
    // From its first tick: the default window (21 days before kick-off) may leave older ticks out.
    const from = `&from=${new Date(densest.firstHourMs).toISOString()}`;
    return { historyEvent: densest.eventID, most: densest.ticks, from };
  }
  const chosen = events.find((e) => e.eventID === densest?.eventID) ?? events[0]!;
  // The markets and books of a fully priced event (the chosen one may have kicked off and lost its odds).
  const priced = [...events].sort((a, b) => Object.keys(b.odds ?? {}).length - Object.keys(a.odds ?? {}).length)[0]!;
  const oddIDs = Object.keys(priced.odds ?? {}).slice(0, 60);
  const bookmakerIDs = [...new Set(oddIDs.flatMap((oddID) => Object.keys(priced.odds?.[oddID]?.byBookmaker ?? {})))];
  if (!writtenDepth(stack.dataDir)) {
    report(
      `  history: the densest event (${chosen.eventID}) holds ${densest?.ticks ?? 0} ticks, fewer than ${PAGED_TICKS}`,
    );
  }
  const depth = await deepenHistory(
    stack,
    {
      eventID: chosen.eventID,
      sportID: chosen.sportID,
      leagueID: chosen.leagueID,
      startsAtMs: Date.parse(chosen.status.startsAt),
      oddIDs,
      bookmakerIDs,
    },
    PAGED_TICKS,
    report,
  );
  const held = (await historyTicks(stack)).byEvent.find((e) => e.eventID === depth.eventID);
  report(`  history: ${depth.eventID} holds ${held?.live ?? 0} live and ${held?.archive ?? 0} archive ticks`);
  return {
    historyEvent: depth.eventID,
    most: held?.ticks ?? 0,
    from: `&from=${new Date(depth.fromMs).toISOString()}&to=${new Date(depthEndMs(depth)).toISOString()}`,
  };
}

/** Reads up to 50,000 ticks of one event page by page (5000 a page), as a back-tester does. */
/** Attempts at one page of the paged read before it is reported as failed (a 5xx under load is retried). */
const PAGE_ATTEMPTS = 3;

async function pagedHistory(
  stack: RunningStack,
  eventID: string,
  from: string,
): Promise<{ ticks: number; pages: number; ms: number; retries: number; failed?: string }> {
  let cursor: string | null = "";
  let ticks = 0;
  let pages = 0;
  let retries = 0;
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - started) / 1e6;
  while (cursor !== null && ticks < PAGED_TICKS) {
    const path = `/odds/history/?eventID=${eventID}&limit=5000${from}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    let page: { data: unknown[]; nextCursor: string | null } | undefined;
    for (let attempt = 1; page === undefined; attempt++) {
      try {
        page = await getJson(stack, path);
      } catch (err) {
        // One answer refused under load must not cost the whole run its figures: retry, then report it.
        if (attempt === PAGE_ATTEMPTS) return { ticks, pages, ms: elapsedMs(), retries, failed: String(err) };
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    ticks += page.data.length;
    pages += 1;
    cursor = page.nextCursor;
  }
  return { ticks, pages, ms: elapsedMs(), retries };
}

/** The pid of every service and store of the stack, as running now (a restarted service has a new one). */
function stackPids(stack: RunningStack): Record<string, number | undefined> {
  return Object.fromEntries([
    ...SERVICE_NAMES.map((name) => [name, stack.service(name).child.pid] as const),
    ["ferretdb", stack.mongo.child.pid] as const,
    ["ferretdb-history", stack.mongoHistory.child.pid] as const,
    ["ferretdb-archive", stack.mongoArchive.child.pid] as const,
    ["redis", stack.redis.child.pid] as const,
  ]);
}

/** Peak RSS (VmHWM, MB) so far of every service and store of the stack. */
function stackPeakRssMb(stack: RunningStack): Record<string, number | null> {
  return Object.fromEntries(Object.entries(stackPids(stack)).map(([name, pid]) => [name, peakRssMb(pid)]));
}

/**
 * Where each process's final peak was reached: the first case once which its VmHWM stood within 2 %
 * of the final value ("start" when it already did as the stack began serving, "after the cases"
 * when only the steady cycle and the paged read that follow them raised it). Ingest cycles run
 * beside the cases, so a case names when a peak was reached, not always what caused it.
 */
function peakReachedDuring(
  final: Record<string, number | null>,
  atServing: Record<string, number | null>,
  rows: CaseRow[],
): Record<string, string> {
  const near = (peak: number | null | undefined, of: number | null) => peak != null && of != null && peak >= of * 0.98;
  return Object.fromEntries(
    Object.entries(final).map(([name, peak]) => {
      if (near(atServing[name], peak)) return [name, "start"];
      const row = rows.find((candidate) => near(candidate.peakRssMb?.[name], peak));
      return [name, row ? `${row.case} ${row.mode} c=${row.connections}` : "after the cases"];
    }),
  );
}

function fmt(n: number | undefined, digits = 0): string {
  return n === undefined ? "" : n.toFixed(digits);
}

/**
 * BENCH_INGEST_INTERVAL_MS: ingest's cycle interval during the run (its own 2 minutes by default). A long one
 * leaves the cases without a cycle beside them after the start's, to tell the read path's own latency from the
 * share of the machine a cycle takes.
 */
const INGEST_INTERVAL_ENV: Record<string, string> = process.env.BENCH_INGEST_INTERVAL_MS
  ? { INGEST_INTERVAL_MS: process.env.BENCH_INGEST_INTERVAL_MS }
  : {};

/**
 * Node flags per service for the run: BENCH_NODE_FLAGS_<SERVICE> (upper case, space-separated flags,
 * e.g. BENCH_NODE_FLAGS_HISTORY="--heap-growing-percent=50"), after the service's own (SERVICE_NODE_FLAGS); none by
 * default.
 */
const serviceNodeFlags: Partial<Record<ServiceName, readonly string[]>> = Object.fromEntries(
  SERVICE_NAMES.map((name) => [
    name,
    (process.env[`BENCH_NODE_FLAGS_${name.toUpperCase()}`] ?? "").split(" ").filter(Boolean),
  ]),
);

/** The whole stack on a fresh copy of the benchmark's dataset (built on first use), as the runs load it. */
async function startBenchStack(report: (line: string) => void, interruption: Interruption) {
  const fingerprint = datasetFingerprint(SEED);
  const datasetDir = process.env.BENCH_DATA_DIR ?? join(REPO_ROOT, ".local", "bench", fingerprint);
  mkdirSync(datasetDir, { recursive: true });
  report(
    `api bench: dataset ${datasetDir} (seed ${SEED}; built on first use, reused until the feed or history store code changes)`,
  );
  const { dir: dataDir, copySeconds } = await runDirFor(datasetDir, Boolean(writtenDepth(datasetDir)), report);
  const startedAt = Date.now();
  const stopWatching = watchIngestLog(dataDir, startedAt, (line) =>
    report(`  ingest: ${line} (${((Date.now() - startedAt) / 1000).toFixed(0)} s)`),
  );
  const starting = startStack({
    dataDir,
    ports: "free",
    persistRedis: false,
    // A fresh dataset is written by ingest's backfill and first cycle before it serves.
    readyTimeoutMs: 45 * 60_000,
    serviceEnv: {
      usage: { PLANS_FILE: join(REPO_ROOT, "test", "bench", "plans.yaml") },
      ingest: { SIM_SEED: SEED, ...DATASET_INGEST_ENV, ...INGEST_INTERVAL_ENV },
    },
    nodeFlags: serviceNodeFlags,
    onProgress: (message) => report(`  ${message} (${((Date.now() - startedAt) / 1000).toFixed(0)} s)`),
    signal: interruption.signal,
  }).finally(() => stopWatching());
  // Interrupted while it starts (the dataset build included), the stack stops what it started; once up, it stops whole.
  const forgetStack = interruption.ownStarting(starting);
  const stack = await starting;
  const servingAt = Date.now();
  report(`  stack serving after ${((servingAt - startedAt) / 1000).toFixed(0)} s`);
  return { stack, forgetStack, dataDir, datasetDir, fingerprint, copySeconds, startedAt, servingAt };
}

/** A case's request headers in one mode: the bench's key, and gzip accepted for hot-gzip. */
function caseHeaders(stack: RunningStack, mode: CaseRow["mode"]): Record<string, string> {
  return { "x-api-key": stack.apiKeys.internal, ...(mode === "hot-gzip" ? { "accept-encoding": "gzip" } : {}) };
}

/** The modes a case is loaded in: cold only where it has cache-miss variants. */
function modesOf(benchCase: BenchCase): CaseRow["mode"][] {
  return benchCase.cold ? ["hot", "hot-gzip", "cold"] : ["hot", "hot-gzip"];
}

/**
 * `npm run bench serve`: the stack the runs load, on the same dataset, left serving until Ctrl-C, for a
 * load run of one's own. Writes each case's load, in each mode, as a spec for the bench's own load
 * process, and prints the base URL, the key and each case's hot request for any other tool.
 */
export async function serveBench(report: (line: string) => void, interruption: Interruption): Promise<void> {
  const { stack, dataDir } = await startBenchStack(report, interruption);
  const cases = await buildCases(stack, report);
  const origin = new URL(stack.baseUrl).origin;
  const specDir = join(dataDir, "load-specs");
  mkdirSync(specDir, { recursive: true });
  report(`serving ${stack.baseUrl} on the benchmark's dataset; header x-api-key: ${stack.apiKeys.internal}`);
  for (const benchCase of cases) {
    report(`  ${benchCase.name}: ${origin}${benchCase.hot}`);
    for (const mode of modesOf(benchCase)) {
      const spec: LoadSpec = {
        origin,
        paths: mode === "cold" ? benchCase.cold! : [benchCase.hot],
        headers: caseHeaders(stack, mode),
        connections: CONNECTIONS.includes(16) ? 16 : CONNECTIONS[0]!,
        ...WINDOW,
      };
      const file = join(specDir, `${benchCase.name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-${mode}.json`);
      writeFileSync(file, JSON.stringify(spec));
      report(`    ${mode}: node ${join(__dirname, "load-worker.js")} ${file}`);
    }
  }
  report("serving until Ctrl-C, which stops the stack");
  // The stack's processes keep this one alive; the interruption stops them and exits.
  await new Promise((resolve) => interruption.signal.addEventListener("abort", resolve));
}

export async function runApiBench(report: (line: string) => void, interruption: Interruption): Promise<void> {
  const { stack, forgetStack, dataDir, datasetDir, fingerprint, copySeconds, startedAt, servingAt } =
    await startBenchStack(report, interruption);
  specFile = join(dataDir, "load-spec.json");
  const peakAtServing = stackPeakRssMb(stack);
  const probe = new FreshnessProbe(stack);
  probe.start();
  const cpu = new CpuSampler(() => stackPids(stack));
  cpu.start();
  const rows: CaseRow[] = [];
  let bare: { origin: string; child: ChildProcess } | undefined;
  try {
    // BENCH_CASES: comma-separated substrings of the case names to run (all by default).
    const only = (process.env.BENCH_CASES ?? "").split(",").filter(Boolean);
    const cases = (await buildCases(stack, report)).filter(
      (benchCase) => only.length === 0 || only.some((part) => benchCase.name.includes(part)),
    );
    const origin = new URL(stack.baseUrl).origin;

    const failedCases: Array<{ case: string; path: string; status: number; body: string }> = [];
    // Each hot case's exact bytes, identity and gzip, for the bare server.
    const bodies: BareBody[] = [];
    const bodyIndex = new Map<string, number>();
    for (const benchCase of cases) {
      const res = await fetch(`${origin}${benchCase.hot}`, { headers: caseHeaders(stack, "hot") });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (!res.ok) {
        // A route that fails at this scale is a result, not the end of the run: report it and go on.
        failedCases.push({ case: benchCase.name, path: benchCase.hot, status: res.status, body: bytes.toString() });
        report(`  ${benchCase.name}: HTTP ${res.status} ${bytes.toString().slice(0, 200)}; case skipped`);
        continue;
      }
      const identity = join(dataDir, `bare-${bodies.length}.json`);
      writeFileSync(identity, bytes);
      bodyIndex.set(`${benchCase.name}|hot`, bodies.length);
      bodies.push({ file: identity, headers: { "content-type": JSON_TYPE } });
      const gzip = join(dataDir, `bare-${bodies.length}.json.gz`);
      writeFileSync(gzip, gzipSync(bytes));
      bodyIndex.set(`${benchCase.name}|hot-gzip`, bodies.length);
      bodies.push({
        file: gzip,
        headers: { "content-type": JSON_TYPE, "content-encoding": "gzip" },
      });
    }
    bare = await startBare(bodies, join(dataDir, "bare-bodies.json"), stack.redis.url, interruption);

    for (const benchCase of cases) {
      if (failedCases.some((failed) => failed.case === benchCase.name)) continue;
      for (const mode of modesOf(benchCase)) {
        // A cold case's windows go on through its requests, each where the one before stopped.
        let firstPath = 0;
        for (const connections of CONNECTIONS) {
          const headers = caseHeaders(stack, mode);
          const paths = mode === "cold" ? benchCase.cold! : [benchCase.hot];
          const loadFrom = new Date().toISOString();
          const cpuBefore = cpu.sample();
          const api = await measure({ origin, paths, headers, connections, firstPath }, interruption);
          const cpuUsed = cpu.since(cpuBefore);
          const loadTo = new Date().toISOString();
          firstPath = nextFirstPath(api.firstPath, api.pathsSent, paths.length);
          const index = bodyIndex.get(`${benchCase.name}|${mode}`);
          const reference: { bare: LoadResult; admitted: LoadResult; answers?: number } | undefined =
            mode === "cold"
              ? await coldReference(
                  { origin, paths, headers, connections },
                  api,
                  join(dataDir, "bare-cold"),
                  stack.redis.url,
                  interruption,
                )
              : index === undefined
                ? undefined
                : await bareReference(bare.origin, [index], { headers, connections }, interruption);
          const bareResult = reference?.bare;
          const admitted = reference?.admitted;
          const ratio = ratioTo(api, bareResult);
          // The floor over the bare server: none where the floor itself failed (its Redis call refused).
          const admittedRatio = admitted && admitted.non2xx === 0 ? ratioTo(admitted, bareResult) : undefined;
          const row: CaseRow = {
            case: benchCase.name,
            mode,
            connections,
            responseBytes: index === undefined ? 0 : readFileSync(bodies[index]!.file).length,
            ...(reference?.answers !== undefined ? { referenceAnswers: reference.answers } : {}),
            api,
            ...(bareResult ? { bare: bareResult } : {}),
            ...(ratio !== undefined ? { ratio } : {}),
            ...(admitted ? { admitted } : {}),
            ...(admittedRatio !== undefined ? { admittedRatio } : {}),
            peakRssMb: stackPeakRssMb(stack),
            window: { from: loadFrom, to: loadTo, duringCycle: false },
            ...(api.requests > 0 ? { cpuMsPerRequest: perRequest(cpuUsed, api.requests) } : {}),
          };
          rows.push(row);
          report(
            `  ${benchCase.name} ${mode} c=${connections}: ${rate(api)} req/s p50 ${fmt(api.p50Ms, 1)} ms ` +
              `p99 ${fmt(api.p99Ms, 1)} ms, errors ${api.errors + api.non2xx}${apiRefusals(api)} (${api.windowSeconds} s)` +
              (bareResult
                ? ` | bare ${rate(bareResult)} req/s p99 ${fmt(bareResult.p99Ms, 1)} ms${referenceFailures(bareResult)}`
                : "") +
              (admitted
                ? ` | bare + Redis ${rate(admitted)} req/s p99 ${fmt(admitted.p99Ms, 1)} ms${referenceFailures(admitted)}`
                : "") +
              (row.cpuMsPerRequest
                ? ` | CPU ms a request: ${Object.entries(row.cpuMsPerRequest)
                    .sort(([, a], [, b]) => b - a)
                    .slice(0, 4)
                    .map(([name, ms]) => `${name} ${ms}`)
                    .join(", ")}`
                : ""),
          );
        }
      }
    }

    const historyCase = cases.find((c) => c.name.startsWith("history"));
    const historyQuery = historyCase ? new URL(`${origin}${historyCase.hot}`).searchParams : undefined;
    const historyEvent = historyQuery?.get("eventID") ?? "";
    const historyFrom = ["from", "to"]
      .filter((name) => historyQuery?.has(name))
      .map((name) => `&${name}=${historyQuery?.get(name)}`)
      .join("");
    const paged = historyCase ? await pagedHistory(stack, historyEvent, historyFrom) : undefined;
    if (paged) {
      const retried = paged.retries > 0 ? ` (${paged.retries} page(s) retried after an error)` : "";
      report(
        paged.failed
          ? `  history paged read FAILED after ${paged.ticks} ticks in ${paged.pages} pages${retried}: ${paged.failed}`
          : `  history paged read: ${paged.ticks} ticks in ${paged.pages} pages, ${paged.ms.toFixed(0)} ms${retried}`,
      );
    }

    const casesEndedAt = Date.now();
    // The steady cycle: the second done after the stack served, as the first after a start re-sends the whole world.
    await awaitCycles(dataDir, "the steady cycle", 2, (cycle) => Date.parse(cycle.doneAt) > servingAt, report);
    // A cycle with no read load beside it: what a cycle alone costs every process.
    await awaitCycles(
      dataDir,
      "a cycle begun after the cases",
      1,
      (cycle) => cycleStartMs(cycle) >= casesEndedAt,
      report,
    );
    // Leave the probe a few polls past the last cycle's writes.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    probe.stop();
    cpu.stop();
    const cycles = ingestCycles(dataDir, startedAt).map((cycle) => ({
      ...cycle,
      eventsFreshMs: probe.freshnessMs(cycle, "events", eventsAppliedAt(dataDir, cycle.cycleID)),
      historyFreshMs: historyFreshness(probe, dataDir, cycle),
      afterCases: cycleStartMs(cycle) >= casesEndedAt,
      cpuMsByProcess: cpu.between(cycleStartMs(cycle), Date.parse(cycle.doneAt)),
    }));
    const seen = (ms: number | null) => (ms === null ? "(not seen)" : `${ms} ms`);
    const phases = (p: (typeof cycles)[number]["phaseMs"]) =>
      p === null
        ? ""
        : ` (fetch ${p.fetch}, normalise ${p.normalise}, fingerprint ${p.fingerprint}, then writes: ` +
          `events ${p.writes.events}, history ${p.writes.history}, catalogue ${p.writes.catalogue} ms)`;
    // A case's window overlaps a cycle from the cycle's start to the end of its writes (the events service applies
    // the last call just after): its reads then share the machine with a cycle's whole write path. A cycle still
    // running as the run ends (a short BENCH_CYCLE_WAIT_S) overlaps every window after its start.
    const running = unfinishedCycle(dataDir, startedAt);
    if (running)
      report(
        `  ingest ${running.cycleID}: still running as the run ends (started ${new Date(running.startedAtMs).toISOString()}); the cases after its start ran beside it`,
      );
    for (const row of rows) {
      if (!row.window) continue;
      const from = Date.parse(row.window.from);
      const to = Date.parse(row.window.to);
      row.window.duringCycle =
        cycles.some((cycle) => cycleStartMs(cycle) < to && Date.parse(cycle.doneAt) > from) ||
        (running !== undefined && running.startedAtMs < to);
    }
    const cores = (await import("node:os")).cpus().length;
    const machineCpu = (used: Record<string, number> | null) => {
      if (used === null) return "";
      const total = Object.values(used).reduce((sum, ms) => sum + ms, 0);
      const each = Object.entries(used)
        .filter(([, ms]) => ms >= 500)
        .sort(([, a], [, b]) => b - a)
        .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)}`)
        .join(", ");
      return `; CPU s of every process: ${each}; ${(total / 1000).toFixed(1)} core-s in all, at least ${(total / 1000 / cores).toFixed(1)} s of wall on ${cores} cores`;
    };
    for (const cycle of cycles)
      report(
        `  ingest ${cycle.cycleID}${cycle.afterCases ? " (after the cases)" : ""}: ${cycle.events} events (${cycle.eventsChanged ?? "?"} changed), ${cycle.quotes} quotes, ` +
          `wall ${cycle.wallMs} ms, CPU ${cycle.cpuMs} ms${phases(cycle.phaseMs)}; served after its writes by /v2/events/ ${seen(cycle.eventsFreshMs)}, ` +
          `by /v2/odds/history/ ${seen(cycle.historyFreshMs)}${machineCpu(cycle.cpuMsByProcess)}`,
      );
    const { byEvent, ...ticks } = await historyTicks(stack);
    const dataset = datasetShape(await allEvents(stack));
    report(
      `  dataset: ${dataset.events} events (${dataset.withOdds} priced), ${dataset.oddIDsPerPricedEvent.toFixed(0)} oddIDs and ` +
        `${dataset.bookmakersPerPricedEvent.toFixed(1)} bookmakers per priced event, ${dataset.prices} bookmaker prices; ` +
        `history ticks: live ${ticks.live.ticks} in ${ticks.live.buckets} buckets, archive ${ticks.archive.ticks} in ${ticks.archive.buckets} buckets; ` +
        `densest event ${byEvent[0]?.eventID ?? "(none)"} ${byEvent[0]?.ticks ?? 0} ticks`,
    );
    const rss = stackPeakRssMb(stack);
    const rssReached = peakReachedDuring(rss, peakAtServing, rows);
    const results = {
      at: new Date().toISOString(),
      commit: (await exec("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT })).stdout.trim(),
      machine: { cpus: (await import("node:os")).cpus().length, loadavg: (await import("node:os")).loadavg() },
      durationSeconds: DURATION_S,
      minAnswers: MIN_ANSWERS,
      maxWindowSeconds: MAX_WINDOW_S,
      dataset: {
        seed: SEED,
        fingerprint,
        // Where BENCH_DATA_DIR named the dataset: `fingerprint` is then what this code would have built, not what ran.
        ...(process.env.BENCH_DATA_DIR ? { dir: relative(REPO_ROOT, datasetDir) } : {}),
        // Null: the run that built the dataset ran on it; otherwise the seconds its copy took.
        copySeconds,
        settings: DATASET_INGEST_ENV,
        ...dataset,
        historyTicks: { ...ticks, densestEvent: byEvent[0] ?? null },
      },
      // What each service ran with: its own flags (the launcher's), then the run's.
      serviceNodeFlags: Object.fromEntries(
        SERVICE_NAMES.map((name) => [name, nodeFlagsFor(name, serviceNodeFlags[name])]),
      ),
      // How far below the launcher's CPU priority each service ran (none: at it).
      serviceNiceness: SERVICE_NICENESS,
      ingestIntervalMs: Number(process.env.BENCH_INGEST_INTERVAL_MS ?? 120_000),
      stackServingSeconds: (servingAt - startedAt) / 1000,
      ingestCycles: cycles,
      rows,
      failedCases,
      pagedHistory: paged ? { eventID: historyEvent, ...paged } : null,
      peakRssMb: rss,
      peakRssMbAtServing: peakAtServing,
      peakRssReachedDuring: rssReached,
    };
    report("");
    report(table(rows));
    report(
      `peak RSS (MB): ${Object.entries(rss)
        .map(([name, mb]) => `${name} ${fmt(mb ?? undefined)}`)
        .join(", ")}`,
    );
    report(
      `peak RSS reached during: ${Object.entries(rssReached)
        .map(([name, during]) => `${name} ${during}`)
        .join("; ")}`,
    );
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, process.env.BENCH_RESULTS_NAME ?? "latest.json");
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    report(`results written to ${file}`);
  } finally {
    probe.stop();
    if (bare) await stopChild(bare.child);
    await stack.stop();
    forgetStack();
  }
}

/** A latency, blank where no request completed (autocannon then reports 0). */
function latency(result: LoadResult | undefined, ms: number | undefined): string {
  return result === undefined || result.requests === 0 ? "" : fmt(ms, 1);
}

/** CPU ms per request, to two decimals, of the processes that used any. */
function perRequest(used: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(used)
      .filter(([, ms]) => ms > 0)
      .map(([name, ms]) => [name, Math.round((ms / requests) * 100) / 100]),
  );
}

/** When a cycle began: its writes' end less its wall time. */
function cycleStartMs(cycle: IngestCycle): number {
  return Date.parse(cycle.doneAt) - cycle.wallMs;
}

/**
 * Waits (at most BENCH_CYCLE_WAIT_S) until `needed` cycles that `counts` are done (`what` names
 * them in the progress lines). Says why if it gives up.
 */
async function awaitCycles(
  dataDir: string,
  what: string,
  needed: number,
  counts: (cycle: IngestCycle) => boolean,
  report: (line: string) => void,
): Promise<void> {
  const waitUntilMs = Date.now() + CYCLE_WAIT_S * 1000;
  let reported = -1;
  for (;;) {
    // One read of ingest's log per poll.
    const cycles = ingestCycles(dataDir, 0).filter(counts);
    if (cycles.length >= needed) return;
    if (Date.now() >= waitUntilMs) {
      report(
        `  gave up waiting for ${what} after BENCH_CYCLE_WAIT_S=${CYCLE_WAIT_S} s: ${cycles.length} of ${needed} done` +
          (cycles.length > 0 ? ` (the last at ${cycles.at(-1)!.doneAt}, wall ${cycles.at(-1)!.wallMs} ms)` : "") +
          "; raise BENCH_CYCLE_WAIT_S to wait longer",
      );
      return;
    }
    if (cycles.length !== reported) {
      reported = cycles.length;
      report(`  waiting for ${what}: ${reported} of ${needed} done`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A hot row's answer size; a cold row's answers vary, so their mean (headers included), marked "~". */
function bytesOf(row: CaseRow): string {
  if (row.responseBytes) return String(row.responseBytes);
  return row.api.meanAnswerBytes ? `~${row.api.meanAnswerBytes}` : "";
}

/** The one printed table: a markdown table, so the README can show it as is. */
export function table(rows: CaseRow[]): string {
  const lines = [
    "| case | mode | conns | bytes | API req/s | p50 ms | p99 ms | errors | bare req/s | bare p99 ms | ratio | " +
      "bare + Redis req/s | its ratio | during a cycle |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.case} | ${row.mode} | ${row.connections} | ${bytesOf(row)} | ${rate(row.api)} | ` +
        `${latency(row.api, row.api.p50Ms)} | ${latency(row.api, row.api.p99Ms)} | ${row.api.errors + row.api.non2xx} | ` +
        `${rate(row.bare)} | ${latency(row.bare, row.bare?.p99Ms)} | ${fmt(row.ratio, 2)} | ` +
        `${rate(row.admitted)} | ${fmt(row.admittedRatio, 2)} | ` +
        `${row.window === undefined ? "" : row.window.duringCycle ? "yes" : "no"} |`,
    );
  }
  return lines.join("\n");
}
