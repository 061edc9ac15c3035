// Ingest SIGKILLed after events call k of n of a regular cycle (real processes, real FerretDB, the simulated feed),
// restarted by the launcher's supervisor. The restart must not take the cut cycle for an unfinished backfill (it
// would write the whole backfill again: about 15 minutes at full scale): it skips the backfill, and its first cycle
// writes every event whole, so what the cut cycle left out is written.
import { waitUntil, type SupervisedProcess } from "@odds/local";
import {
  ingestServing,
  linesOfStart,
  startFaultStore,
  type FaultStore,
  startWritePath,
  type WritePath,
} from "./data-services";

const PHASE_MS = 600_000;
const ENV = {
  SIM_SEED: "faults-ingest-cut-cycle",
  BACKFILL_DAYS: "1",
  // Every market of a week's events open: a cycle's events take several calls (40 000 bookmaker prices a call).
  SIM_HORIZON_DAYS: "7",
  SIM_MARKETS_OPEN_DAYS: "90",
  // No scheduled cycle during the test: each start writes its first cycle only.
  INGEST_INTERVAL_MS: "3600000",
};

/**
 * A regular cycle's events call before its last: `#k` (sent while the cycle was built, before the
 * count was known) or `#k/n` with k < n. The last call is `#n/n`, or the bare cycle id when alone.
 */
function shortOfLast(cycleID: string): boolean {
  const [, k, n] = /^cycle-[^#]*#(\d+)(?:\/(\d+))?$/.exec(cycleID) ?? [];
  return k !== undefined && (n === undefined || Number(k) < Number(n));
}

let store: FaultStore;
let run: WritePath | undefined;

beforeAll(async () => {
  store = await startFaultStore("cut-cycle");
}, 60_000);

afterAll(async () => {
  await run?.stop();
  await store?.stop();
});

describe("ingest SIGKILLed inside a regular cycle's events write", () => {
  it(
    "restarts without writing the backfill again, and its first cycle writes every event whole",
    async () => {
      run = await startWritePath(store, "cut");
      const ingest: SupervisedProcess = run.startIngest(ENV);
      const feed = store.mongo.db(run.databases.events).collection<{ _id: string; cycleId: string }>("feed_state");
      const lastCycleId = async () => (await feed.findOne({ _id: "feed" }))?.cycleId ?? "";

      // First start: the backfill, the first live cycle's events under the backfill's own id.
      await ingestServing(run.ingestLog, 0, PHASE_MS);
      expect(await lastCycleId()).toMatch(/^backfill-cycle-/);

      // Killed once the backfill is written: the restart skips it and sends every event whole in several calls.
      ingest.child.kill("SIGKILL");
      await waitUntil("ingest restarted", async () => expect(ingest.restarts).toBe(1), { timeoutMs: 30_000 });
      await waitUntil(
        "the restart's cycle part written",
        async () => {
          if (!shortOfLast(await lastCycleId()))
            throw new Error("no events call of a regular cycle short of its last yet");
        },
        { timeoutMs: PHASE_MS, intervalMs: 20, process: ingest },
      );
      ingest.child.kill("SIGKILL");
      expect(shortOfLast(await lastCycleId())).toBe(true);

      // Restarted again: the cut cycle is not an unfinished backfill.
      await ingestServing(run.ingestLog, 2, PHASE_MS);
      for (const start of [1, 2]) {
        const lines = linesOfStart(run.ingestLog, start).map((line) => line.msg);
        expect(lines).toContain("events applied the backfill's last write or a later cycle; backfill skipped");
        expect(lines).not.toContain("backfill replayed; writing the finished events and the first live cycle");
        expect(lines).not.toContain("events hold an unfinished backfill; writing it again");
      }
      const done = linesOfStart(run.ingestLog, 2).find((line) => line.msg === "cycle done");
      expect(done?.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
      expect(done?.eventsChanged).toBe(done?.events);
      expect(await lastCycleId()).toMatch(/^cycle-[^#]*(#(\d+)\/\2)?$/);
      expect(ingest.restarts).toBe(2);
    },
    PHASE_MS * 3,
  );
});
