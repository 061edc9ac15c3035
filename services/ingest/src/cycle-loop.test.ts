import { createLogger } from "@odds/platform";
import { CycleLoop, cycleInstant } from "./cycle-loop";
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

  test("a restart with a lengthened interval runs no cycle before the one events applied last", async () => {
    // Two-minute cycles ran up to 10:32; ingest restarts at 10:38:14 on an hourly interval, whose boundary is 10:00.
    jest.useFakeTimers();
    const at = (hhmmss: string) => Date.parse(`2026-11-25T${hhmmss}.000Z`);
    let now = at("10:38:14");
    const instants: number[] = [];
    const loop = new CycleLoop(recordingRunner(instants), 3_600_000, createLogger("test", "silent"), () => now);
    loop.resumeAfter(at("10:32:00"));
    await loop.runOnce();
    expect(instants).toEqual([at("10:38:14")]);

    loop.start();
    now = at("11:00:00");
    await jest.advanceTimersByTimeAsync(at("11:00:00") - at("10:38:14"));
    expect(instants).toEqual([at("10:38:14"), at("11:00:00")]);
    await loop.stop();
  });

  test("while the clock is behind the newest cycle applied, that cycle is replayed, then boundaries resume", async () => {
    jest.useFakeTimers();
    let now = 120;
    const instants: number[] = [];
    const loop = new CycleLoop(recordingRunner(instants), 100, createLogger("test", "silent"), () => now);
    loop.resumeAfter(250);
    await loop.runOnce();
    loop.start();
    now = 200;
    await jest.advanceTimersByTimeAsync(80);
    now = 300;
    await jest.advanceTimersByTimeAsync(100);
    expect(instants).toEqual([250, 250, 300]);
    await loop.stop();
  });

  test("logs a cycle as started before it runs, and as done once it ends (the benchmark reads both)", async () => {
    const logger = createLogger("ingest", "silent");
    const info = jest.spyOn(logger, "info");
    const logged = () =>
      info.mock.calls.map(([fields, msg]) => ({ msg, cycleID: (fields as { cycleID?: string }).cycleID }));
    let finish: () => void = () => undefined;
    const runner = recordingRunner([]);
    const blocked = {
      runCycle: (at: Date) => new Promise<CycleReport>((resolve) => (finish = () => resolve(runner.runCycle(at)))),
    };
    const loop = new CycleLoop(blocked, 100, logger, () => 1_000);
    const run = loop.runOnce();
    await new Promise((resolve) => setImmediate(resolve));
    const cycleID = cycleIdAt(new Date(1_000));
    expect(logged()).toEqual([{ msg: "cycle started", cycleID }]);
    finish();
    await run;
    expect(logged()).toEqual([
      { msg: "cycle started", cycleID },
      { msg: "cycle done", cycleID },
    ]);
    await loop.stop();
  });
});

describe("cycle instant", () => {
  test("is the interval's boundary, the same for a restart inside the interval as for the cycle that ran", () => {
    expect(cycleInstant(1_234, 100)).toEqual(new Date(1_200));
    expect(cycleInstant(1_234, 100, 1_200)).toEqual(new Date(1_200));
    expect(cycleInstant(1_299, 100, 1_100)).toEqual(new Date(1_200));
  });

  test("is never before the newest cycle applied: the clock's own instant, or the newest while the clock is behind", () => {
    expect(cycleInstant(1_234, 1_000, 1_100)).toEqual(new Date(1_234));
    expect(cycleInstant(1_234, 1_000, 1_500)).toEqual(new Date(1_500));
  });
});
