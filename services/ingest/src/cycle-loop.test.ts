import { createLogger } from "@odds/platform";
import { CycleLoop } from "./cycle-loop";
import { cycleIdAt, type CycleReport } from "./cycle-runner";

/** A runner that only records which cycle instants it was asked for. */
function recordingRunner(instants: number[]) {
  return {
    runCycle(at: Date): Promise<CycleReport> {
      instants.push(at.getTime());
      return Promise.resolve({
        cycleID: cycleIdAt(at),
        fresh: true,
        events: 0,
        eventsChanged: 0,
        snapshots: 0,
        quotes: 0,
        rejectedQuotes: 0,
        upstream: {},
        pending: { events: 0, history: 0, catalogue: 0 },
        phaseMs: { fetch: 0, normalise: 0, fingerprint: 0, writes: { events: 0, history: 0, catalogue: 0 } },
      });
    },
  };
}

describe("cycle loop", () => {
  test("a timer that fires before its boundary by the cycle clock waits it out: no cycle is run twice or skipped", async () => {
    // Timers run on the monotonic clock; cycle instants are read from the wall clock (or INGEST_CLOCK_START's),
    // which can run behind it (slewed, or a timer firing up to 1 ms early). Here the cycle clock runs at 90 %
    // of the timers' pace, so every timer fires before its boundary by the cycle clock.
    const INTERVAL_MS = 100;
    const wallStart = Date.now();
    const clock = () => Math.floor((Date.now() - wallStart) * 0.9);
    const instants: number[] = [];
    const loop = new CycleLoop(recordingRunner(instants), INTERVAL_MS, createLogger("test", "silent"), clock);
    loop.start();
    while (instants.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    await loop.stop();
    expect(instants.slice(0, 3)).toEqual([100, 200, 300]);
  });
});
