import { readdirSync, readFileSync } from "node:fs";

/**
 * The nice value of each thread of a process (Linux keeps one per thread), by thread id, read from /proc: field 19 of
 * each thread's stat, counted after the command's closing parenthesis (a command may hold spaces).
 */
export function threadNiceness(pid: number = process.pid): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    niceness.set(Number(tid), Number(fields[19 - 3]));
  }
  return niceness;
}
