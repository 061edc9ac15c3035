import { readFileSync } from "node:fs";

/** Peak resident set (VmHWM) of a process, in MB; null when it cannot be read (gone, or no pid). */
export function peakRssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}
