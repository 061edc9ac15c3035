// Ingest SIGKILLed mid-cycle and restarted by the launcher's supervisor, compared with an
// uninterrupted run of the same seed and clock: real processes, real FerretDB, the simulated feed.
// After the next cycle both runs must hold the same events (with their odds), catalogue and ticks.
// Then the archiver job is SIGKILLed mid-batch on the uninterrupted run's tiers.
import { inflateRawSync } from "node:zlib";
import { waitUntil, type ManagedProcess } from "@odds/local";
import type { Binary, Db } from "mongodb";
import {
  ingestLogLines,
  nodeService,
  startFaultStore,
  type FaultStore,
  startWritePath,
  type WritePath,
} from "./data-services";

/** Long enough for a restarted ingest's backfill and first cycle on a loaded machine, before the next boundary. */
const INTERVAL_MS = 120_000;
const SEED = "faults-ingest-killed";
/** Cycle instants are multiples of the interval; both runs start their clocks at the same one. */
const CLOCK_START = new Date(Math.floor(Date.now() / INTERVAL_MS) * INTERVAL_MS);
const SECOND_CYCLE = `cycle-${new Date(CLOCK_START.getTime() + INTERVAL_MS).toISOString()}`;

let store: FaultStore;
let runs: WritePath[] = [];

function ingestEnv(): Record<string, string> {
  return {
    SIM_SEED: SEED,
    INGEST_CLOCK_START: CLOCK_START.toISOString(),
    INGEST_INTERVAL_MS: String(INTERVAL_MS),
    BACKFILL_DAYS: "3",
  };
}

/** Resolves once ingest logged this cycle done with nothing left pending. */
function cycleWritten(run: WritePath, cycleID: string): Promise<void> {
  return waitUntil(
    `${cycleID} written (${run.ingestLog})`,
    async () => {
      const done = ingestLogLines(run.ingestLog).find((line) => line.msg === "cycle done" && line.cycleID === cycleID);
      if (!done) throw new Error("not yet");
      const pending = Object.values(done.pending ?? {}).reduce((a, b) => a + b, 0);
      if (pending > 0) throw new Error(`cycle done with writes pending: ${JSON.stringify(done.pending)}`);
    },
    { timeoutMs: INTERVAL_MS * 3, intervalMs: 500 },
  );
}

/** History's hour buckets: one collection per event, `buckets_<eventID>`, each bucket holding `n` ticks. */
const BUCKETS = "buckets_";

/** Every document of every collection, sorted by id, without what is wall-clock time of the write. */
async function contents(db: Db, volatile: string[] = []): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of names) {
    if (volatile.includes(name)) continue;
    const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
    // A bucket's version counts its rewrites (a replay rewrites one to the same ticks): not data.
    out[name] = docs.map((doc) => {
      const { v: _version, ...data } = doc;
      return JSON.parse(JSON.stringify(name.startsWith(BUCKETS) ? data : doc)) as unknown;
    });
  }
  return out;
}

function tickCount(stored: Record<string, unknown[]>): number {
  return Object.entries(stored)
    .filter(([name]) => name.startsWith(BUCKETS))
    .reduce((sum, [, docs]) => sum + docs.reduce((n: number, doc) => n + (doc as { n: number }).n, 0), 0);
}

beforeAll(async () => {
  store = await startFaultStore("ingest");
}, 60_000);

afterAll(async () => {
  await Promise.all(runs.map((run) => run.stop()));
  await store?.stop();
});

describe("ingest SIGKILLed mid-cycle and restarted", () => {
  it(
    "after the next cycle holds exactly the events, odds, catalogue and ticks of an uninterrupted run",
    async () => {
      const started = await Promise.allSettled(["steady", "killed"].map((run) => startWritePath(store, run)));
      runs = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])); // stopped in afterAll
      const failed = started.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
      const [steady, killed] = runs as [WritePath, WritePath];
      const notices: string[] = [];
      steady.startIngest(ingestEnv());
      const ingest = killed.startIngest(ingestEnv(), (message) => notices.push(message));

      // Killed while the backfill and first cycle are being written: as soon as any target took a write.
      const eventsDb = store.mongo.db(killed.databases.events);
      const historyDb = store.mongo.db(killed.databases.history);
      await waitUntil(
        "the killed run's first write",
        async () => {
          const [feed, collections] = await Promise.all([
            eventsDb.collection("feed_state").countDocuments(),
            historyDb.listCollections({}, { nameOnly: true }).toArray(),
          ]);
          if (feed === 0 && !collections.some((c) => c.name.startsWith(BUCKETS))) throw new Error("no write yet");
        },
        { timeoutMs: INTERVAL_MS, intervalMs: 50, process: ingest },
      );
      const firstPid = ingest.child.pid;
      ingest.child.kill("SIGKILL");
      const midCycle = !ingestLogLines(killed.ingestLog).some((line) => line.msg === "backfill written");

      await Promise.all([cycleWritten(steady, SECOND_CYCLE), cycleWritten(killed, SECOND_CYCLE)]);
      expect(midCycle).toBe(true);
      expect(ingest.restarts).toBe(1);
      expect(ingest.child.pid).not.toBe(firstPid);
      expect(notices[0]).toMatch(/ingest-killed exited \(SIGKILL\); restarting in \d+ ms/);

      // Wall-clock bookkeeping (when a cycle was applied, revision counters) is not data.
      const [a, b] = await Promise.all(
        [steady, killed].map(async (run) => ({
          events: await contents(store.mongo.db(run.databases.events), ["feed_state"]),
          history: await contents(store.mongo.db(run.databases.history)),
          archive: await contents(store.mongo.db(run.databases.historyArchive)),
          catalogue: await contents(store.mongo.db(run.databases.catalogue), ["meta"]),
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

/** Every tick of a tier by event collection and tick id, as stored in its bucket (deflated JSON). */
async function ticksOf(db: Db): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (!name.startsWith(BUCKETS)) continue;
    for (const bucket of await db.collection<{ ticks: Binary }>(name).find({}).toArray()) {
      // A tick is a row whose first value is its id (`StoredRow`), or an object in buckets written before rows.
      const ticks = JSON.parse(inflateRawSync(bucket.ticks.buffer).toString("utf8")) as Array<
        [string] | { _id: string }
      >;
      for (const tick of ticks) out.set(`${name}/${Array.isArray(tick) ? tick[0] : tick._id}`, JSON.stringify(tick));
    }
  }
  return out;
}

/** The largest bucket's tick count in a tier. */
async function largestBucket(db: Db): Promise<number> {
  let largest = 0;
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (!name.startsWith(BUCKETS)) continue;
    for (const { n } of await db
      .collection<{ n: number }>(name)
      .find({}, { projection: { n: 1 } })
      .toArray())
      largest = Math.max(largest, n);
  }
  return largest;
}

describe("the archiver job SIGKILLed mid-batch", () => {
  const RETENTION_DAYS = 1;
  const BATCH = 25;
  /** Days strictly before this one leave the live tier (the archiver's own rule). */
  const cutoffDay = () => new Date(Date.now() - RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
  /** The UTC day of a stored tick: a row's changedAt is its sixth value (`StoredRow`), an older object's is named. */
  const dayOf = (doc: string) => {
    const tick = JSON.parse(doc) as unknown[] | { changedAt: number };
    return new Date(Array.isArray(tick) ? (tick[5] as number) : tick.changedAt).toISOString().slice(0, 10);
  };

  it("loses and doubles no tick, and the next run leaves every tick in exactly one tier", async () => {
    const run = runs[0];
    if (!run) throw new Error("needs the uninterrupted ingest run above");
    const live = store.mongo.db(run.databases.history);
    const archive = store.mongo.db(run.databases.historyArchive);
    const archiver = (name: string): ManagedProcess =>
      nodeService(store.dir, name, "history/dist/archiver.js", {
        ...run.historyEnv,
        HISTORY_LIVE_RETENTION_DAYS: String(RETENTION_DAYS),
        ARCHIVE_BATCH_SIZE: String(BATCH),
      });
    const before = new Map([...(await ticksOf(live)), ...(await ticksOf(archive))]);
    const bucketMax = await largestBucket(live);
    const toMove = [...before.values()].filter((doc) => dayOf(doc) < cutoffDay()).length;
    expect(toMove).toBeGreaterThan(BATCH * 20);

    const first = archiver("archiver-killed");
    await waitUntil(
      "a few batches archived",
      async () => {
        if ((await ticksOf(archive)).size < BATCH * 4) throw new Error("not yet");
      },
      { timeoutMs: 120_000, intervalMs: 50, process: first },
    );
    first.child.kill("SIGKILL");
    expect(await first.stop()).toBe(null);

    // Killed mid-move: every tick is still in a tier, unchanged; at most the batch in flight (whole buckets
    // until BATCH ticks) is in both.
    const [liveAfterKill, archiveAfterKill] = [await ticksOf(live), await ticksOf(archive)];
    const stillOld = [...liveAfterKill.values()].filter((doc) => dayOf(doc) < cutoffDay()).length;
    expect(stillOld).toBeGreaterThan(0);
    for (const [id, doc] of before) expect([id, liveAfterKill.get(id) ?? archiveAfterKill.get(id)]).toEqual([id, doc]);
    const inBoth = [...archiveAfterKill.keys()].filter((id) => liveAfterKill.has(id));
    expect(inBoth.length).toBeLessThan(BATCH + bucketMax);

    // The next run completes the move: old days only in the archive, every tick exactly once.
    const second = archiver("archiver-next");
    expect(await new Promise((resolve) => second.child.once("exit", resolve))).toBe(0);
    const [liveAfter, archiveAfter] = [await ticksOf(live), await ticksOf(archive)];
    expect([...archiveAfter.keys()].filter((id) => liveAfter.has(id))).toEqual([]);
    expect([...liveAfter.values()].filter((doc) => dayOf(doc) < cutoffDay())).toEqual([]);
    for (const [id, doc] of before) {
      const tier = dayOf(doc) < cutoffDay() ? archiveAfter : liveAfter;
      expect([id, tier.get(id)]).toEqual([id, doc]);
    }
    expect(archiveAfter.size).toBe(toMove);
    const oldDays = (await live.collection("tickDays").find({}).toArray()).filter((d) => String(d.day) < cutoffDay());
    expect(oldDays).toEqual([]);
  }, 300_000);
});
