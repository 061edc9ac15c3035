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
  afterEach(() => jest.useRealTimers());

  test("a timer that fires before its boundary by the cycle clock waits it out: no cycle is run twice or skipped", async () => {
    // Timers run on the monotonic clock; cycle instants are read from the wall clock (or INGEST_CLOCK_START's),
    // which can read a millisecond short of the boundary when its timer fires (slewed, or a timer firing up to
    // 1 ms early). Here both are driven by hand: the timer fires while the cycle clock still reads 99.
    jest.useFakeTimers();
    let now = 0;
    const instants: number[] = [];
    const loop = new CycleLoop(recordingRunner(instants), 100, createLogger("test", "silent"), () => now);
    loop.start();

    now = 99;
    await jest.advanceTimersByTimeAsync(100);
    expect(instants).toEqual([]);

    now = 100;
    await jest.advanceTimersByTimeAsync(1);
    expect(instants).toEqual([100]);

    now = 199;
    await jest.advanceTimersByTimeAsync(99);
    expect(instants).toEqual([100]);
    now = 200;
    await jest.advanceTimersByTimeAsync(1);
    expect(instants).toEqual([100, 200]);
    await loop.stop();
  });
});
