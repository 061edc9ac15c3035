// Ingest restarted with a longer cycle interval (real processes, real FerretDB, the simulated feed). Cycle instants
// are the interval's boundaries, and the new interval's last boundary can lie before the cycle events applied last
// (10:00 on an hourly interval after 10:30 on a two-minute one). The restart's first cycle must not run there: it
// would serve older prices over newer ones and write history out of order.
import type { SupervisedProcess } from "@odds/local";
import {
  ingestServing,
  linesOfStart,
  startFaultStore,
  type FaultStore,
  startWritePath,
  type WritePath,
} from "./data-services";

const PHASE_MS = 600_000;
const SHORT_MS = 120_000;
const LONG_MS = 3_600_000;
/** Half past the previous hour: its hourly boundary is 30 minutes before it. */
const FIRST_CLOCK = new Date(Math.floor(Date.now() / LONG_MS) * LONG_MS - LONG_MS / 2);
/** The restart's clock, six minutes on: its hourly boundary is still the one before FIRST_CLOCK. */
const RESTART_CLOCK = new Date(FIRST_CLOCK.getTime() + 6 * 60_000);
const ENV = { SIM_SEED: "faults-ingest-interval-lengthened", BACKFILL_DAYS: "1" };

let store: FaultStore;
let run: WritePath | undefined;

beforeAll(async () => {
  store = await startFaultStore("interval");
}, 60_000);

afterAll(async () => {
  await run?.stop();
  await store?.stop();
});

function instantOf(cycleID: string | undefined): number {
  return Date.parse(/^cycle-([^#]+)/.exec(cycleID ?? "")?.[1] ?? "");
}

describe("ingest restarted with a longer cycle interval", () => {
  it(
    "runs its first cycle at its clock's instant, not at the new interval's boundary before the cycle applied last",
    async () => {
      run = await startWritePath(store, "interval");
      const feed = store.mongo.db(run.databases.events).collection<{ _id: string; observedAtMs: number }>("feed_state");
      const observedAtMs = async () => (await feed.findOne({ _id: "feed" }))?.observedAtMs ?? 0;

      let ingest: SupervisedProcess = run.startIngest({
        ...ENV,
        INGEST_INTERVAL_MS: String(SHORT_MS),
        INGEST_CLOCK_START: FIRST_CLOCK.toISOString(),
      });
      await ingestServing(run.ingestLog, 0, PHASE_MS);
      await ingest.stop(30_000);
      const applied = await observedAtMs();
      expect(applied).toBeGreaterThanOrEqual(FIRST_CLOCK.getTime());
      // The premise: the hourly boundary of the restart's clock lies before what events hold.
      expect(Math.floor(RESTART_CLOCK.getTime() / LONG_MS) * LONG_MS).toBeLessThan(applied);

      ingest = run.startIngest({
        ...ENV,
        INGEST_INTERVAL_MS: String(LONG_MS),
        INGEST_CLOCK_START: RESTART_CLOCK.toISOString(),
      });
      await ingestServing(run.ingestLog, 1, PHASE_MS);
      const lines = linesOfStart(run.ingestLog, 1);
      expect(lines.map((line) => line.msg)).toContain(
        "events applied the backfill's last write or a later cycle; backfill skipped",
      );
      const done = lines.find((line) => line.msg === "cycle done");
      expect(done?.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
      // The clock's own instant (it read RESTART_CLOCK as it started, then ran on).
      const firstInstant = instantOf(done?.cycleID);
      expect(firstInstant).toBeGreaterThanOrEqual(RESTART_CLOCK.getTime());
      expect(firstInstant).toBeLessThan(RESTART_CLOCK.getTime() + PHASE_MS);
      expect(await observedAtMs()).toBe(firstInstant);
    },
    PHASE_MS * 2 + 60_000,
  );
});
