// Runs a cycle on every interval boundary (cycle instants are multiples of the interval, so a
// restart inside the same interval replays the same cycle id and payloads), never one before the
// newest cycle already applied.
import type { Logger } from "@odds/platform";
import { cycleIdAt, type CycleReport, type CycleRunner } from "./cycle-runner";
import { cycleDuration, cycleLag } from "./metrics";

/**
 * The instant of the cycle to run when the clock reads `nowMs`: the interval's boundary, unless that
 * lies before `newestMs`, the newest cycle already applied. Such a boundary comes from an interval
 * lengthened across a restart (10:00 on an hourly interval after 10:32 on a two-minute one) or a
 * clock behind the data, and its cycle would serve older prices over newer ones and write ticks out
 * of order: the cycle then runs at the clock's own instant or, while the clock is still behind,
 * replays the newest.
 */
export function cycleInstant(nowMs: number, intervalMs: number, newestMs = 0): Date {
  const boundaryMs = Math.floor(nowMs / intervalMs) * intervalMs;
  return new Date(boundaryMs >= newestMs ? boundaryMs : Math.max(nowMs, newestMs));
}

/** The wall clock, or one that reads `start` now and runs on from it at the wall clock's pace. */
export function clockFrom(start: Date | undefined, wall: () => number = Date.now): () => number {
  if (!start) return wall;
  const offsetMs = start.getTime() - wall();
  return () => wall() + offsetMs;
}

export class CycleLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** The newest cycle instant run or applied: no cycle runs before it. */
  private newestMs = 0;

  constructor(
    private readonly runner: Pick<CycleRunner, "runCycle">,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes the newest cycle the events service applied (its observation instant): no cycle runs before it. */
  resumeAfter(observedAtMs: number): void {
    this.newestMs = Math.max(this.newestMs, observedAtMs);
  }

  /** The instant of the cycle to run now. */
  currentInstant(): Date {
    return cycleInstant(this.clock(), this.intervalMs, this.newestMs);
  }

  /** Runs the cycle of the current interval; resolves with its report. */
  async runOnce(): Promise<CycleReport> {
    const at = this.currentInstant();
    this.newestMs = Math.max(this.newestMs, at.getTime());
    const endTimer = cycleDuration.startTimer();
    const startedMs = performance.now();
    const cpuBefore = process.cpuUsage();
    // Read by the benchmark: a cycle still running when a run ends is beside its last cases too.
    this.logger.info({ cycleID: cycleIdAt(at) }, "cycle started");
    const run = this.runner.runCycle(at);
    this.running = run.catch(() => undefined);
    try {
      const report = await run;
      cycleLag.set((this.clock() - at.getTime()) / 1000);
      const level = report.pending.history + report.pending.events + report.pending.catalogue > 0 ? "warn" : "info";
      // Wall and CPU time of the cycle, read by the benchmark from the log.
      const cpu = process.cpuUsage(cpuBefore);
      const timing = {
        wallMs: Math.round(performance.now() - startedMs),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      };
      this.logger[level]({ ...report, ...timing }, "cycle done");
      return report;
    } finally {
      endTimer();
    }
  }

  /** Schedules a cycle at each following interval boundary until stop(). */
  start(): void {
    if (this.stopped) return;
    this.armFor((Math.floor(this.clock() / this.intervalMs) + 1) * this.intervalMs);
  }

  /**
   * Runs the next cycle once the clock reads `boundaryMs`. A timer counts from the event loop's cached
   * time, which lags the clock by however long the loop has been busy (a cycle's own synchronous work),
   * so it can fire before its boundary: then it waits out the rest rather than run the previous
   * interval's cycle again and skip this one.
   */
  private armFor(boundaryMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        if (this.clock() < boundaryMs) return this.armFor(boundaryMs);
        this.runOnce()
          .catch((err: unknown) => this.logger.error({ err }, "cycle failed"))
          .finally(() => this.start());
      },
      Math.max(0, boundaryMs - this.clock()),
    );
  }

  /** Stops scheduling and waits for a cycle in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
