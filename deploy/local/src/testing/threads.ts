import { readdirSync, readFileSync } from "node:fs";

/**
 * The nice value of each thread of a process (Linux keeps one per thread), by thread id, read from /proc: field 19 of
 * each thread's stat, counted after the command's closing parenthesis (a command may hold spaces). A thread that ends
 * while it is read is left out.
 */
export function threadNiceness(pid: number = process.pid): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = statOf(`/proc/${pid}/task/${tid}/stat`);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    niceness.set(Number(tid), Number(fields[19 - 3]));
  }
  return niceness;
}

function statOf(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ESRCH") {
      return undefined;
    }
    throw err;
  }
}
