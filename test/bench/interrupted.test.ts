// `npm run bench` interrupted: the real bench entry (test/dist/bench/run.js, as `npm run bench` runs it) in a child
// process on a tiny dataset of its own, stopped by SIGTERM while ingest writes the dataset (the stack still
// starting) and by SIGINT (Ctrl-C) once the stack serves. Every process it started must be gone, by pid.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  FERRETDB_BINARY,
  FERRETDB_STORES,
  processStats,
  procStatFields,
  REPO_ROOT,
  removeScratchFolder,
  scratchFolder,
  SERVICE_NAMES,
  stopChild,
  waitUntil,
  type ManagedProcess,
} from "@odds/local";

const RUN = join(REPO_ROOT, "test", "dist", "bench", "run.js");
/** Stores and services stop in order, each SIGKILLed after its 12 s grace: the bound on the bench's exit. */
const EXIT_BOUND_MS = 150_000;

interface Bench {
  child: ChildProcess;
  /** Its BENCH_DATA_DIR: the dataset, the run's copy and every process's log. */
  dataDir: string;
  /** What the bench printed (its last 4000 characters). */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** For waits that must fail at once if the bench exits on its own. */
  managed: ManagedProcess;
}

function startBench(): Bench {
  const dataDir = scratchFolder("odds-bench-interrupted-");
  const child = spawn(process.execPath, [RUN, "api"], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BENCH_DATA_DIR: dataDir,
      // A tiny dataset: one day listed ahead, one day of backfill (ingest reads BACKFILL_DAYS from the environment).
      BENCH_HORIZON_DAYS: "1",
      BENCH_MARKETS_OPEN_DAYS: "1",
      BACKFILL_DAYS: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    dataDir,
    output: () => output.slice(-4000),
    exited,
    managed: { name: "bench", child, stop: () => stopChild(child) },
  };
}

/** Whether a process is there and not a zombie (its state in /proc/<pid>/stat). */
function running(pid: number): boolean {
  const state = procStatFields(`/proc/${pid}/stat`)?.[0];
  return state !== undefined && state !== "Z";
}

/** Every running descendant of `root`, pid -> command line. */
function descendants(root: number): Map<number, string> {
  const childrenOf = new Map<number, number[]>();
  for (const { pid, fields } of processStats()) {
    // A zombie has ended: it and what it left are not counted as running.
    if (fields[0] === "Z") continue;
    const ppid = Number(fields[1]);
    childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), pid]);
  }
  const found = new Map<number, string>();
  const queue = [root];
  while (queue.length > 0) {
    for (const pid of childrenOf.get(queue.shift()!) ?? []) {
      let command = "";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      } catch {
        continue;
      }
      found.set(pid, command);
      queue.push(pid);
    }
  }
  return found;
}

/**
 * What of the stack is not yet among `commands` (the bench's running descendants): its FerretDBs, redis-server and
 * each of its services by its entry point.
 */
function missingFromStack(commands: string[]): string[] {
  const missing: string[] = [];
  const ferretdbs = commands.filter((command) => command.startsWith(FERRETDB_BINARY)).length;
  if (ferretdbs < FERRETDB_STORES.length) missing.push(`${FERRETDB_STORES.length - ferretdbs} of the FerretDBs`);
  if (!commands.some((command) => command.startsWith("redis-server"))) missing.push("redis-server");
  for (const service of SERVICE_NAMES)
    if (!commands.some((command) => command.includes(join("services", service, "dist", "main.js"))))
      missing.push(service);
  return missing;
}

/** Interrupts the bench with `signal`; resolves once it exited, with what it left running of `started`. */
async function interrupt(bench: Bench, signal: NodeJS.Signals, started: Map<number, string>) {
  bench.child.kill(signal);
  const exit = await Promise.race([
    bench.exited,
    new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`bench still running ${EXIT_BOUND_MS} ms after ${signal}:\n${bench.output()}`)),
        EXIT_BOUND_MS,
      ).unref(),
    ),
  ]);
  // The bench waits for each child's exit before its own: a moment for the last ones to be reaped.
  await waitUntil(
    "every process the bench started gone",
    async () => {
      if ([...started.keys()].some(running)) throw new Error("some still running");
    },
    { timeoutMs: 5_000, intervalMs: 100 },
  ).catch(() => undefined);
  const left = [...started].filter(([pid]) => running(pid)).map(([pid, command]) => `${pid} ${command}`);
  return { exit, left };
}

let bench: Bench | undefined;
afterEach(async () => {
  // A failed assertion must not leave the bench's processes, or its folder, behind either.
  await bench?.managed.stop(EXIT_BOUND_MS);
  removeScratchFolder(bench?.dataDir);
}, EXIT_BOUND_MS + 10_000);

describe("npm run bench interrupted", () => {
  test("SIGTERM while ingest writes the dataset stops every process the bench started and exits 143", async () => {
    bench = startBench();
    const current = bench;
    let started = new Map<number, string>();
    // Ingest and the edge are spawned one after the other: a snapshot of /proc taken between the two holds ingest
    // alone, so the wait is for the whole stack's processes, not for ingest's first sight.
    await waitUntil(
      "ingest writing the bench dataset, every process of the stack started",
      async () => {
        started = descendants(current.child.pid!);
        const missing = missingFromStack([...started.values()]);
        if (missing.length > 0) throw new Error(`not yet: ${missing.join(", ")}\n${current.output()}`);
      },
      { timeoutMs: 300_000, intervalMs: 250, process: current.managed },
    );
    expect(current.output()).not.toMatch(/stack serving after/);
    const { exit, left } = await interrupt(current, "SIGTERM", started);
    expect(left).toEqual([]);
    expect(exit).toEqual({ code: 143, signal: null });
    expect(current.output()).toMatch(/SIGTERM: stopping everything started/);
  }, 600_000);

  test("SIGINT (Ctrl-C) once the stack serves stops every process the bench started and exits 130", async () => {
    bench = startBench();
    const current = bench;
    await waitUntil(
      "the bench's stack serving",
      async () => {
        if (!/stack serving after/.test(current.output())) throw new Error(`not yet\n${current.output()}`);
      },
      { timeoutMs: 480_000, intervalMs: 500, process: current.managed },
    );
    const started = descendants(current.child.pid!);
    expect(missingFromStack([...started.values()])).toEqual([]);
    const { exit, left } = await interrupt(current, "SIGINT", started);
    expect(left).toEqual([]);
    expect(exit).toEqual({ code: 130, signal: null });
  }, 900_000);
});
