import { readdirSync, readFileSync } from "node:fs";

/**
 * The fields of a process's or thread's stat file in /proc (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`) after
 * its command, which may hold spaces and parentheses: index i is field i + 3 of proc(5) (0: state, 1: ppid, 11 and 12:
 * utime and stime, 16: nice). Undefined when the process or thread is gone (or never was).
 */
export function procStatFields(file: string): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return undefined;
    throw err;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The nice value of each thread of a process (Linux keeps one per thread), by thread id. A thread that ends while it is
 * read is left out.
 */
export function threadNiceness(pid: number = process.pid): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = procStatFields(`/proc/${pid}/task/${tid}/stat`);
    if (fields) niceness.set(Number(tid), Number(fields[16]));
  }
  return niceness;
}

/** Linux's lowest CPU priority: a nice increment past it stops there. */
const LOWEST_NICENESS = 19;

/**
 * The nice value a process started `increment` below this one runs at (`nice -n`, capped at Linux's lowest), from the
 * niceness of this process's main thread.
 */
export function nicenessBelowOwn(increment: number): number {
  return Math.min(LOWEST_NICENESS, threadNiceness().get(process.pid)! + increment);
}
