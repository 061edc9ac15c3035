import { readdirSync, readFileSync } from "node:fs";

/**
 * The fields of a process's or thread's stat file in /proc (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`) after
 * its command, which may hold spaces and parentheses: index i is field i + 3 of proc(5) (0: state, 1: ppid, 2: pgrp,
 * 11 and 12: utime and stime, 16: nice). Undefined when the process or thread is gone (or never was).
 */
export function procStatFields(file: string): string[] | undefined {
  return procStat(file)?.fields;
}

/** A stat file's command (proc(5)'s `comm`) and the fields after it (as `procStatFields`); undefined when gone. */
function procStat(file: string): { command: string; fields: string[] } | undefined {
  let stat: string;
  try {
    stat = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return undefined;
    throw err;
  }
  const end = stat.lastIndexOf(")");
  return { command: stat.slice(stat.indexOf("(") + 1, end), fields: stat.slice(end + 2).split(" ") };
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

/** Every process now, with its stat file's command and fields (as `procStat`); one that ends meanwhile is left out. */
export function processStats(): Array<{ pid: number; command: string; fields: string[] }> {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      const stat = procStat(`/proc/${pid}/stat`);
      return stat ? [{ pid: Number(pid), ...stat }] : [];
    });
}

/** The commands (proc(5)'s `comm`) of the processes in process group `pgid` now. */
export function commandsInGroup(pgid: number): string[] {
  return processStats()
    .filter(({ fields }) => Number(fields[2]) === pgid)
    .map(({ command }) => command);
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
