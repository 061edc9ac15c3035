import { procStatFields } from "@odds/local";

/** Linux's clock ticks per second (USER_HZ), the unit of utime and stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) a process has used so far, or undefined when it is gone. */
function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const fields = procStatFields(`/proc/${pid}/stat`);
  // utime and stime, the 14th and 15th fields.
  return fields && ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export interface Sample {
  atMs: number;
  /** Per process: its pid then and the CPU ms it had used. */
  cpu: Map<string, { pid: number; ms: number }>;
}

/**
 * Samples the CPU time of named processes every `intervalMs`, so the CPU each used over any
 * window (an ingest cycle) can be read afterwards: what a cycle costs the whole machine, not
 * only ingest. A process restarted within a window (a new pid) counts from its own start.
 */
export class CpuSampler {
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: () => Record<string, number | undefined>,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A sample taken now (kept with the periodic ones): pass it to `since` to read what each process used after it. */
  sample(): Sample {
    const cpu = new Map<string, { pid: number; ms: number }>();
    for (const [name, pid] of Object.entries(this.pids())) {
      const ms = cpuMsOf(pid);
      if (pid !== undefined && ms !== undefined) cpu.set(name, { pid, ms });
    }
    const sample = { atMs: Date.now(), cpu };
    this.samples.push(sample);
    return sample;
  }

  /** CPU ms each process used since `first`, up to a sample taken now. */
  since(first: Sample): Record<string, number> {
    return used(first, this.sample());
  }

  /**
   * CPU ms each process used between the last sample at or before `fromMs` and the first at or
   * after `toMs` (so a window is never under-counted by up to one interval either side); null when
   * the samples do not cover the window.
   */
  between(fromMs: number, toMs: number): Record<string, number> | null {
    const first = [...this.samples].reverse().find((sample) => sample.atMs <= fromMs);
    const last = this.samples.find((sample) => sample.atMs >= toMs);
    if (!first || !last) return null;
    return used(first, last);
  }
}

function used(first: Sample, last: Sample): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [name, end] of last.cpu) {
    const begin = first.cpu.get(name);
    result[name] = Math.round(begin && begin.pid === end.pid ? end.ms - begin.ms : end.ms);
  }
  return result;
}
