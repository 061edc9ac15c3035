import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { freePort, waitUntil } from "./processes";
import { startStack } from "./stack";
import { startRedis } from "./stores";
import { removeScratchFolder, scratchFolder } from "./testing/scratch";

/** This process's children that still run (an exited child not yet reaped counts as gone; `ps` itself is left out). */
function childPids(): number[] {
  return execFileSync("ps", ["-o", "pid=,stat=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, stat, command]) => Number(pid) > 0 && !stat?.startsWith("Z") && command !== "ps")
    .map(([pid]) => Number(pid));
}

function running(pid: number): boolean {
  return childPids().includes(pid);
}

describe("a start interrupted through its AbortSignal", () => {
  let dir: string;
  beforeAll(() => (dir = scratchFolder("odds-interrupted-")));
  afterAll(() => removeScratchFolder(dir));

  it("waitUntil rejects with the signal's reason at once, even while its probe hangs", async () => {
    const controller = new AbortController();
    const waiting = waitUntil("a probe that never answers", () => new Promise(() => undefined), {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("interrupted by SIGINT")), 50);
    await expect(waiting).rejects.toThrow("interrupted by SIGINT");
  });

  it("a store whose start is aborted is stopped before the start rejects", async () => {
    const before = new Set(childPids());
    const controller = new AbortController();
    const starting = startRedis({
      port: await freePort(),
      dataDir: join(dir, "redis"),
      logFile: join(dir, "redis.log"),
      persist: false,
      signal: controller.signal,
    });
    // Once redis-server is spawned, so the abort finds it starting.
    await waitUntil(
      "redis-server spawned",
      async () => {
        if (!childPids().some((pid) => !before.has(pid))) throw new Error("not yet");
      },
      { timeoutMs: 10_000, intervalMs: 5 },
    );
    controller.abort(new Error("interrupted by SIGTERM"));
    await expect(starting).rejects.toThrow("interrupted by SIGTERM");
    expect(childPids().filter((pid) => !before.has(pid))).toEqual([]);
  });

  it("startStack aborted while its services start stops every process it started, then rejects", async () => {
    const before = new Set(childPids());
    const controller = new AbortController();
    const starting = startStack({
      dataDir: join(dir, "stack"),
      ports: "free",
      persistRedis: false,
      signal: controller.signal,
    });
    // Aborted once the four stores and the four data services are spawned (none of the services serves yet).
    let started: number[] = [];
    await waitUntil(
      "the stores and data services spawned",
      async () => {
        started = childPids().filter((pid) => !before.has(pid));
        if (started.length < 8) throw new Error(`${started.length} processes`);
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    controller.abort(new Error("interrupted by SIGINT"));
    await expect(starting).rejects.toThrow("interrupted by SIGINT");
    expect(started.filter(running)).toEqual([]);
  }, 120_000);
});
