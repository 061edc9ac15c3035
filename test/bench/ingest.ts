import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FERRETDB_STORES, logPath, REPO_ROOT, type RunningStack } from "@odds/local";
import { MongoClient } from "mongodb";

/**
 * The benchmark dataset and ingest at full scale: which code and settings the dataset is built
 * from, the cycles ingest ran during the benchmark (wall and CPU time, from its log), how soon a
 * cycle's new prices are served, and how many history tick documents both tiers hold.
 */

/**
 * The simulated world of the benchmark: ≥ 600 current events, every market open, and a history of
 * ≥ 5 million ticks: the events of the last BENCH_BACKFILL_FULL_DAYS are backfilled with every market,
 * ~20 looks each (docs/performance.md "Backfill streamed").
 */
export const DATASET_INGEST_ENV = {
  SIM_HORIZON_DAYS: process.env.BENCH_HORIZON_DAYS ?? "88",
  SIM_MARKETS_OPEN_DAYS: process.env.BENCH_MARKETS_OPEN_DAYS ?? "90",
  BACKFILL_FULL_DAYS: process.env.BENCH_BACKFILL_FULL_DAYS ?? "48",
};

/** Source files of a folder, tests left out, in a stable order. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
    });
}

/**
 * The dataset is rebuilt when the simulated feed, ingest's backfill, the history store (its write module decides the
 * stored layout), the local stack's stores (which FerretDB holds what) or the dataset's settings
 * change; otherwise the folder is reused.
 */
export function datasetFingerprint(seed: string): string {
  const hash = createHash("sha256")
    .update(seed)
    .update(JSON.stringify(DATASET_INGEST_ENV))
    .update(JSON.stringify(FERRETDB_STORES));
  const files = [
    // The backfill decides which events are replayed at which depth.
    join(REPO_ROOT, "services", "ingest", "src", "backfill.ts"),
    ...[
      join(REPO_ROOT, "services", "ingest", "src", "sources", "simulated"),
      join(REPO_ROOT, "services", "history", "src"),
    ].flatMap(sourceFiles),
  ];
  for (const file of files) hash.update(file.slice(REPO_ROOT.length)).update(readFileSync(file));
  return hash.digest("hex").slice(0, 12);
}

/**
 * Progress while the stack starts: every 10 s, what ingest last logged since `sinceMs` (backfill
 * steps, the first cycle). Returns the function that stops watching.
 */
export function watchIngestLog(dataDir: string, sinceMs: number, report: (line: string) => void): () => void {
  let last = "";
  const timer = setInterval(() => {
    const file = logPath(dataDir, "ingest");
    if (!existsSync(file)) return;
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      try {
        const entry = JSON.parse(lines[i]!) as { time?: string; msg?: string };
        if (Date.parse(String(entry.time)) < sinceMs) return;
        const text = `${entry.msg ?? ""} ${lines[i]!.length > 300 ? "" : lines[i]!}`.trim();
        if (text !== last) report((last = text).slice(0, 300));
        return;
      } catch {
        // Not a JSON line (a stack trace): look further up.
      }
    }
  }, 10_000);
  return () => clearInterval(timer);
}

export interface IngestCycle {
  cycleID: string;
  /** When the cycle's writes finished (the log line's time). */
  doneAt: string;
  events: number;
  /** Events sent whole (content changed); the rest went as their observation times. */
  eventsChanged: number | null;
  quotes: number;
  wallMs: number;
  cpuMs: number;
  /** Where the wall time went, as ingest logged it (null from a build that did not log it). */
  phaseMs: { fetch: number; normalise: number; fingerprint: number; writes: Record<string, number> } | null;
}

/** The cycles ingest logged as done since `sinceMs`. */
export function ingestCycles(dataDir: string, sinceMs: number): IngestCycle[] {
  return ingestLogEntries(dataDir, sinceMs, ["cycle done"])
    .filter((entry) => typeof entry.wallMs === "number")
    .map((entry) => ({
      cycleID: String(entry.cycleID),
      doneAt: String(entry.time),
      events: Number(entry.events),
      eventsChanged: typeof entry.eventsChanged === "number" ? entry.eventsChanged : null,
      quotes: Number(entry.quotes),
      wallMs: entry.wallMs as number,
      cpuMs: Number(entry.cpuMs),
      phaseMs: (entry.phaseMs as IngestCycle["phaseMs"] | undefined) ?? null,
    }));
}

/**
 * The cycle ingest logged as started since `sinceMs` and not yet as done: one still running when a
 * run ends (its cases ran beside it from its start), or undefined.
 */
export function unfinishedCycle(
  dataDir: string,
  sinceMs: number,
): { cycleID: string; startedAtMs: number } | undefined {
  let running: { cycleID: string; startedAtMs: number } | undefined;
  for (const entry of ingestLogEntries(dataDir, sinceMs, ["cycle started", "cycle done"])) {
    if (entry.msg === "cycle started")
      running = { cycleID: String(entry.cycleID), startedAtMs: Date.parse(String(entry.time)) };
    else if (running?.cycleID === entry.cycleID) running = undefined;
  }
  return running;
}

/** Ingest's log lines since `sinceMs` whose message is one of `messages`, parsed, in order. */
function ingestLogEntries(dataDir: string, sinceMs: number, messages: string[]): Record<string, unknown>[] {
  const file = logPath(dataDir, "ingest");
  if (!existsSync(file)) return [];
  const entries: Record<string, unknown>[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!messages.some((msg) => line.includes(`"${msg}"`))) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (messages.includes(String(entry.msg)) && Date.parse(String(entry.time)) >= sinceMs) entries.push(entry);
    } catch {
      // A line cut short by a log rotation or a crash is no entry.
    }
  }
  return entries;
}

/**
 * Watches what /v2/events/ and /v2/odds/history/ serve: every `intervalMs` it reads the league's
 * latest write instant (info.lastUpdatedAt) and the newest tick of that league's first event
 * (changedAt is the observation instant), so a cycle's freshness on each route is the first poll
 * showing that cycle, less the time its writes finished.
 */
/**
 * Where the history probe's window starts: 5 minutes before the current minute. It moves once a
 * minute, so the probe's polls share the edge's cached answer (a new cycle's version still makes
 * them miss): a window moving with every poll made each of the 10 polls a second a history read,
 * which cost history and its FerretDB about a third of a core each during every case measured.
 */
function historyFrom(nowMs: number): string {
  return new Date(Math.floor(nowMs / 60_000) * 60_000 - 5 * 60_000).toISOString();
}

export class FreshnessProbe {
  /** Write instant (ms) -> when the probe first saw it served, per route. */
  private readonly seen = { events: new Map<number, number>(), history: new Map<number, number>() };
  private timer: NodeJS.Timeout | undefined;
  /** A route's read still out: its next poll waits for it (each route on its own, so a slow one never delays the other's). */
  private readonly inFlight = { events: false, history: false };
  private probedEventID: string | undefined;

  constructor(
    private readonly stack: RunningStack,
    private readonly intervalMs = 100,
  ) {}

  private startedAtMs = Number.POSITIVE_INFINITY;

  start(): void {
    this.startedAtMs = Date.now();
    this.timer = setInterval(() => {
      void this.poll("events");
      if (this.probedEventID) void this.poll("history");
    }, this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The event whose newest tick the history probe follows (the first upcoming AFL event with open markets). */
  get eventID(): string | undefined {
    return this.probedEventID;
  }

  /**
   * One read of a route, noted when it is answered. The two routes are polled apart: noted together,
   * a history page slow beside a cycle (a second or more) delayed the events route's sighting by as
   * much and was counted as the events route's freshness.
   */
  private async poll(route: "events" | "history"): Promise<void> {
    if (this.inFlight[route]) return;
    this.inFlight[route] = true;
    try {
      const headers = { "x-api-key": this.stack.apiKeys.internal };
      if (route === "events") {
        const events = await this.read<{ eventID?: string; info?: { lastUpdatedAt?: string } }>(
          // An upcoming event with open markets: one whose prices (and so ticks) move.
          "/events/?leagueID=AFL&limit=1&started=false&oddsAvailable=true&oddID=points-home-game-ml-home",
          headers,
        );
        this.probedEventID ??= events[0]?.eventID;
        this.note("events", events[0]?.info?.lastUpdatedAt);
      } else {
        // The last few minutes of ticks of one event: the newest changedAt is the latest cycle it moved in.
        const history = await this.read<{ changedAt?: string }>(
          `/odds/history/?eventID=${this.probedEventID}&limit=5000&from=${historyFrom(Date.now())}`,
          headers,
        );
        this.note("history", history.at(-1)?.changedAt);
      }
    } catch {
      // A slow answer under load is the next poll's business.
    } finally {
      this.inFlight[route] = false;
    }
  }

  private async read<T>(path: string, headers: Record<string, string>): Promise<T[]> {
    const res = await fetch(`${this.stack.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(5000) });
    return ((await res.json()) as { data?: T[] }).data ?? [];
  }

  private note(route: "events" | "history", at: string | undefined): void {
    const instantMs = at ? Date.parse(at) : NaN;
    if (!Number.isNaN(instantMs) && !this.seen[route].has(instantMs)) this.seen[route].set(instantMs, Date.now());
  }

  /**
   * Milliseconds from a write finishing to the route serving the cycle; null if never seen (on
   * history: the probed event had no tick in that cycle), no write is known, or it was written before
   * the probe started. `writesDoneAt`: when
   * the cycle's calls that carried the probed data were acknowledged (a cycle goes in several calls:
   * the last one acknowledged before the probe saw the cycle is the write that made it visible); the
   * cycle's end by default.
   */
  freshnessMs(
    cycle: IngestCycle,
    route: "events" | "history",
    writesDoneAt: readonly number[] = [Date.parse(cycle.doneAt)],
  ): number | null {
    const servedAt = this.seen[route].get(cycleInstantMs(cycle.cycleID));
    if (servedAt === undefined || writesDoneAt.length === 0) return null;
    const before = writesDoneAt.filter((at) => at <= servedAt);
    const writtenAt = before.length > 0 ? Math.max(...before) : Math.min(...writesDoneAt);
    // Written before the probe watched (a cycle while the stack started): its first sight says nothing.
    return writtenAt < this.startedAtMs ? null : servedAt - writtenAt;
  }
}

function cycleInstantMs(cycleID: string): number {
  return Date.parse(cycleID.replace(/^cycle-/, "").replace(/#.*$/, ""));
}

/** The times of a service's log lines with this message that `matches` picks. */
function loggedAt(
  dataDir: string,
  service: "events" | "history",
  msg: string,
  matches: (entry: Record<string, unknown>) => boolean,
): number[] {
  const file = logPath(dataDir, service);
  if (!existsSync(file)) return [];
  const times: number[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes(`"${msg}"`)) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === msg && matches(entry)) times.push(Date.parse(String(entry.time)));
    } catch {
      // A line cut short is not an acknowledgement.
    }
  }
  return times;
}

/** When the events service acknowledged each call of the cycle (its "cycle applied" log lines). */
export function eventsAppliedAt(dataDir: string, cycleID: string): number[] {
  const instant = cycleInstantMs(cycleID);
  return loggedAt(dataDir, "events", "cycle applied", ({ cycleId }) => {
    return typeof cycleId === "string" && cycleId.startsWith("cycle-") && cycleInstantMs(cycleId) === instant;
  });
}

/**
 * When the history service acknowledged each of the cycle's calls that carried the event's quotes
 * (its "quotes recorded" log lines name the events of a call): a cycle's ticks go in many calls, and
 * the probed event's may land with an early one, long before the cycle's last write.
 */
export function historyRecordedAt(dataDir: string, cycleID: string, eventID: string): number[] {
  const instant = cycleInstantMs(cycleID);
  return loggedAt(dataDir, "history", "quotes recorded", ({ eventIds }) => {
    return Array.isArray(eventIds) && eventIds.includes(eventID);
  }).filter((at) => at >= instant);
}

/** History's tick store of one tier: its hour buckets and the ticks they hold. */
export interface TierTicks {
  buckets: number;
  ticks: number;
}

export interface HistoryTicks {
  live: TierTicks;
  archive: TierTicks;
  /** Ticks per event across both tiers (and in each) and its first bucket's hour (ms), densest first. */
  byEvent: Array<{ eventID: string; ticks: number; live: number; archive: number; firstHourMs: number }>;
}

/** Buckets and ticks in both history tiers (each bucket carries its event and tick count, `n`). */
export async function historyTicks(stack: RunningStack): Promise<HistoryTicks> {
  const perEvent = new Map<string, { live: number; archive: number; firstHourMs: number }>();
  const count = async (url: string, db: string, tier: "live" | "archive"): Promise<TierTicks> => {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      const database = client.db(db);
      const total = { buckets: 0, ticks: 0 };
      for (const { name } of await database.listCollections({}, { nameOnly: true }).toArray()) {
        if (!name.startsWith("buckets_") && name !== "tickBuckets") continue;
        for (const { eventID, n, hour } of await database
          .collection<{ eventID: string; n: number; hour: number }>(name)
          .find({}, { projection: { eventID: 1, n: 1, hour: 1 } })
          .toArray()) {
          total.buckets += 1;
          total.ticks += n;
          const event = perEvent.get(eventID) ?? { live: 0, archive: 0, firstHourMs: hour };
          event[tier] += n;
          event.firstHourMs = Math.min(event.firstHourMs, hour);
          perEvent.set(eventID, event);
        }
      }
      return total;
    } finally {
      await client.close();
    }
  };
  const [live, archive] = await Promise.all([
    count(stack.mongoHistory.url, "history", "live"),
    count(stack.mongoArchive.url, "history_archive", "archive"),
  ]);
  const byEvent = [...perEvent]
    .map(([eventID, held]) => ({ eventID, ticks: held.live + held.archive, ...held }))
    .sort((a, b) => b.ticks - a.ticks);
  return { live, archive, byEvent };
}
