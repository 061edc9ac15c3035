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

/**
 * How many upcoming events the history probe follows. A cycle moves most events, not all (565 of 763 in one run), and
 * a cycle none of the followed events moved in cannot show on their history.
 */
export const HISTORY_PROBED_EVENTS = 3;

/** When the probe first saw a write served, and, on history, whose ticks showed it. */
interface Sighting {
  atMs: number;
  eventID?: string;
}

export class FreshnessProbe {
  /** Write instant (ms) -> the probe's first sighting of it, per route. */
  private readonly seen = { events: new Map<number, Sighting>(), history: new Map<number, Sighting>() };
  private timer: NodeJS.Timeout | undefined;
  /**
   * Reads still out, by what they read ("events", or a history event's id): the next poll of the same thing waits
   * for it (each on its own, so a slow one never delays another's).
   */
  private readonly inFlight = new Set<string>();
  private probedEventIDs: readonly string[] = [];

  constructor(
    /** Where it reads, with which key (the stack's internal tier: limits never reached). */
    private readonly stack: { baseUrl: string; apiKeys: { internal: string } },
    private readonly intervalMs = 100,
  ) {}

  private startedAtMs = Number.POSITIVE_INFINITY;

  start(): void {
    this.startedAtMs = Date.now();
    this.timer = setInterval(() => {
      void this.pollEvents();
      for (const eventID of this.probedEventIDs) void this.pollHistory(eventID);
    }, this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The events whose newest ticks the history probe follows (the first upcoming AFL events with open markets). */
  get eventIDs(): readonly string[] {
    return this.probedEventIDs;
  }

  /**
   * The first poll of the events route after a write shows its time as the first event's `lastUpdatedAt`. The routes
   * are polled apart: noted together, a history page slow beside a cycle (a second or more) delayed the events route's
   * sighting by as much and was counted as the events route's freshness.
   */
  private async pollEvents(): Promise<void> {
    await this.once("events", async () => {
      const events = await this.read<{ eventID?: string; info?: { lastUpdatedAt?: string } }>(
        // Upcoming events with open markets: ones whose prices (and so ticks) move.
        `/events/?leagueID=AFL&limit=${HISTORY_PROBED_EVENTS}&started=false&oddsAvailable=true&oddID=points-home-game-ml-home`,
      );
      if (this.probedEventIDs.length === 0) {
        this.probedEventIDs = events.flatMap((event) => (event.eventID ? [event.eventID] : []));
      }
      this.note("events", events[0]?.info?.lastUpdatedAt);
    });
  }

  /** The last few minutes of ticks of one event: the newest changedAt is the latest cycle it moved in. */
  private async pollHistory(eventID: string): Promise<void> {
    await this.once(eventID, async () => {
      const history = await this.read<{ changedAt?: string }>(
        `/odds/history/?eventID=${eventID}&limit=5000&from=${historyFrom(Date.now())}`,
      );
      this.note("history", history.at(-1)?.changedAt, eventID);
    });
  }

  private async once(what: string, poll: () => Promise<void>): Promise<void> {
    if (this.inFlight.has(what)) return;
    this.inFlight.add(what);
    try {
      await poll();
    } catch {
      // A slow answer under load is the next poll's business.
    } finally {
      this.inFlight.delete(what);
    }
  }

  private async read<T>(path: string): Promise<T[]> {
    const res = await fetch(`${this.stack.baseUrl}${path}`, {
      headers: { "x-api-key": this.stack.apiKeys.internal },
      signal: AbortSignal.timeout(5000),
    });
    return ((await res.json()) as { data?: T[] }).data ?? [];
  }

  private note(route: "events" | "history", at: string | undefined, eventID?: string): void {
    const instantMs = at ? Date.parse(at) : NaN;
    if (Number.isNaN(instantMs) || this.seen[route].has(instantMs)) return;
    this.seen[route].set(instantMs, { atMs: Date.now(), ...(eventID ? { eventID } : {}) });
  }

  /**
   * The followed event whose ticks first showed the cycle on history; undefined when none of them had a tick in it
   * (or it was never served while the probe ran). Its writes (`historyRecordedAt`) are the ones that made it visible.
   */
  historySeenBy(cycle: Pick<IngestCycle, "cycleID">): string | undefined {
    return this.seen.history.get(cycleInstantMs(cycle.cycleID))?.eventID;
  }

  /**
   * Milliseconds from a write finishing to the route serving the cycle; null if never seen (on
   * history: none of the followed events had a tick in that cycle), no write is known, or it was written before
   * the probe started. `writesDoneAt`: when
   * the cycle's calls that carried the probed data were acknowledged (a cycle goes in several calls:
   * the last one acknowledged before the probe saw the cycle is the write that made it visible); the
   * cycle's end by default.
   */
  freshnessMs(
    cycle: Pick<IngestCycle, "cycleID" | "doneAt">,
    route: "events" | "history",
    writesDoneAt: readonly number[] = [Date.parse(cycle.doneAt)],
  ): number | null {
    const servedAt = this.seen[route].get(cycleInstantMs(cycle.cycleID))?.atMs;
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

/**
 * How soon history served the cycle: from the write of the followed event whose ticks showed it first
 * (`FreshnessProbe.historySeenBy`); null when none of the followed events had a tick in the cycle.
 */
export function historyFreshness(
  probe: FreshnessProbe,
  dataDir: string,
  cycle: Pick<IngestCycle, "cycleID" | "doneAt">,
): number | null {
  const eventID = probe.historySeenBy(cycle);
  return eventID === undefined
    ? null
    : probe.freshnessMs(cycle, "history", historyRecordedAt(dataDir, cycle.cycleID, eventID));
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
