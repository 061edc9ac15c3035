// Ingest SIGKILLed mid-cycle and restarted by the launcher's supervisor, compared with an
// uninterrupted run of the same seed and clock: real processes, real FerretDB, the simulated feed.
// After the next cycle both runs must hold the same events (with their odds), catalogue and ticks.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startFerretDb, waitUntil, type MongoServer } from "@odds/local";
import { MongoClient, type Db } from "mongodb";
import { startWritePath, type WritePath } from "./data-services";

/** Long enough for a restarted ingest's backfill and first cycle on a loaded machine, before the next boundary. */
const INTERVAL_MS = 120_000;
const SEED = "faults-ingest-killed";
/** Cycle instants are multiples of the interval; both runs start their clocks at the same one. */
const CLOCK_START = new Date(Math.floor(Date.now() / INTERVAL_MS) * INTERVAL_MS);
const SECOND_CYCLE = `cycle-${new Date(CLOCK_START.getTime() + INTERVAL_MS).toISOString()}`;

let dir: string;
let ferret: MongoServer;
let mongo: MongoClient;
let runs: WritePath[] = [];

function ingestEnv(): Record<string, string> {
  return {
    SIM_SEED: SEED,
    INGEST_CLOCK_START: CLOCK_START.toISOString(),
    INGEST_INTERVAL_MS: String(INTERVAL_MS),
    BACKFILL_DAYS: "3",
  };
}

interface LogLine {
  msg?: string;
  cycleID?: string;
  pending?: Record<string, number>;
}

function logLines(file: string): LogLine[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Resolves once ingest logged this cycle done with nothing left pending. */
function cycleWritten(run: WritePath, cycleID: string): Promise<void> {
  return waitUntil(
    `${cycleID} written (${run.ingestLog})`,
    async () => {
      const done = logLines(run.ingestLog).find((line) => line.msg === "cycle done" && line.cycleID === cycleID);
      if (!done) throw new Error("not yet");
      const pending = Object.values(done.pending ?? {}).reduce((a, b) => a + b, 0);
      if (pending > 0) throw new Error(`cycle done with writes pending: ${JSON.stringify(done.pending)}`);
    },
    { timeoutMs: INTERVAL_MS * 3, intervalMs: 500 },
  );
}

/** Every document of every collection, sorted by id, without what is wall-clock time of the write. */
async function contents(db: Db, volatile: string[] = []): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of names) {
    if (volatile.includes(name)) continue;
    const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
    out[name] = docs.map((doc) => JSON.parse(JSON.stringify(doc)) as unknown);
  }
  return out;
}

function tickCount(stored: Record<string, unknown[]>): number {
  return Object.entries(stored)
    .filter(([name]) => name.startsWith("ticks"))
    .reduce((sum, [, docs]) => sum + docs.length, 0);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "odds-faults-ingest-"));
  ferret = await startFerretDb({
    name: "ferretdb-ingest-faults",
    port: await freePort(),
    dataDir: join(dir, "ferretdb"),
    logFile: join(dir, "ferretdb.log"),
  });
  mongo = await MongoClient.connect(ferret.url);
}, 60_000);

afterAll(async () => {
  await mongo?.close();
  await Promise.all(runs.map((run) => run.stop()));
  await ferret?.stop(5_000);
});

describe("ingest SIGKILLed mid-cycle and restarted", () => {
  it(
    "after the next cycle holds exactly the events, odds, catalogue and ticks of an uninterrupted run",
    async () => {
      runs = await Promise.all([startWritePath(dir, ferret, "steady"), startWritePath(dir, ferret, "killed")]);
      const [steady, killed] = runs as [WritePath, WritePath];
      const notices: string[] = [];
      steady.startIngest(ingestEnv());
      const ingest = killed.startIngest(ingestEnv(), (message) => notices.push(message));

      // Killed while the backfill and first cycle are being written: as soon as any target took a write.
      const eventsDb = mongo.db(killed.databases.events);
      const historyDb = mongo.db(killed.databases.history);
      await waitUntil(
        "the killed run's first write",
        async () => {
          const [feed, collections] = await Promise.all([
            eventsDb.collection("feed_state").countDocuments(),
            historyDb.listCollections({}, { nameOnly: true }).toArray(),
          ]);
          if (feed === 0 && !collections.some((c) => c.name.startsWith("ticks"))) throw new Error("no write yet");
        },
        { timeoutMs: INTERVAL_MS, intervalMs: 50, process: ingest },
      );
      const firstPid = ingest.child.pid;
      ingest.child.kill("SIGKILL");
      const midCycle = !logLines(killed.ingestLog).some((line) => line.msg === "backfill written");

      await Promise.all([cycleWritten(steady, SECOND_CYCLE), cycleWritten(killed, SECOND_CYCLE)]);
      expect(midCycle).toBe(true);
      expect(ingest.restarts).toBe(1);
      expect(ingest.child.pid).not.toBe(firstPid);
      expect(notices[0]).toMatch(/ingest-killed exited \(SIGKILL\); restarting in \d+ ms/);

      // Wall-clock bookkeeping (when a cycle was applied, revision counters) is not data.
      const [a, b] = await Promise.all(
        [steady, killed].map(async (run) => ({
          events: await contents(mongo.db(run.databases.events), ["feed_state"]),
          history: await contents(mongo.db(run.databases.history)),
          archive: await contents(mongo.db(run.databases.historyArchive)),
          catalogue: await contents(mongo.db(run.databases.catalogue), ["meta"]),
        })),
      );
      expect(tickCount(a.history)).toBeGreaterThan(1_000);
      expect((a.events.events ?? []).length).toBeGreaterThan(10);
      expect(tickCount(b.history)).toBe(tickCount(a.history));
      expect(b).toEqual(a);
    },
    INTERVAL_MS * 4 + 150_000,
  );
});
