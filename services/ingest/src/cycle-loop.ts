// Runs a cycle on every interval boundary (cycle instants are multiples of the interval, so a
// restart inside the same interval replays the same cycle id and payloads).
import type { Logger } from "@odds/platform";
import type { CycleReport, CycleRunner } from "./cycle-runner";
import { cycleDuration, cycleLag } from "./metrics";

export function cycleInstant(nowMs: number, intervalMs: number): Date {
  return new Date(Math.floor(nowMs / intervalMs) * intervalMs);
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

  constructor(
    private readonly runner: Pick<CycleRunner, "runCycle">,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Runs the cycle of the current interval; resolves with its report. */
  async runOnce(): Promise<CycleReport> {
    const at = cycleInstant(this.clock(), this.intervalMs);
    const endTimer = cycleDuration.startTimer();
    const startedMs = performance.now();
    const cpuBefore = process.cpuUsage();
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
