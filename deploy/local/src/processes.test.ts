import { spawn } from "node:child_process";
import { readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { freePort, logTail, spawnManaged, waitUntil } from "./processes";
import { nicenessBelowOwn, threadNiceness } from "./testing/proc-stat";
import { removeScratchFolder, scratchFolder } from "./testing/scratch";

let dir: string;
beforeAll(() => (dir = scratchFolder("processes-test-")));
afterAll(() => removeScratchFolder(dir));

describe("logTail: what a failure message carries of a log", () => {
  it("gives the last lines of a log larger than what it reads", () => {
    const file = join(dir, "long.log");
    // 2,000 lines of about 40 bytes: 80 KB, more than the 16 KB read from the end.
    writeFileSync(file, Array.from({ length: 2_000 }, (_, i) => `line ${i} ${"x".repeat(30)}`).join("\n") + "\n");
    const tail = logTail(file, 3).split("\n");
    expect(tail).toEqual([1997, 1998, 1999].map((i) => `line ${i} ${"x".repeat(30)}`));
  });

  it("says why a log cannot be read instead of failing", () => {
    expect(logTail(join(dir, "absent.log"))).toMatch(/^\(not readable: ENOENT/);
  });
});

describe("waitUntil: a probe that passes", () => {
  it("resolves with what the probe resolved with once it stops throwing, after asking again", async () => {
    let asked = 0;
    const found = await waitUntil(
      "the third answer",
      async () => {
        asked += 1;
        if (asked < 3) throw new Error(`answer ${asked}`);
        return { answer: asked };
      },
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(found).toEqual({ answer: 3 });
  });
});

describe("waitUntil: a probe that sees a failure", () => {
  it("ends the wait at once with the reason when it aborts the wait's signal", async () => {
    const failed = new AbortController();
    let asked = 0;
    const waiting = waitUntil(
      "a job to finish",
      async () => {
        asked += 1;
        if (asked === 2) failed.abort(new Error("job failed: exit 1"));
        throw new Error("not finished");
      },
      { timeoutMs: 60_000, intervalMs: 5, signal: failed.signal },
    );
    await expect(waiting).rejects.toThrow("job failed: exit 1");
    expect(asked).toBe(2);
  });
});

describe("waitUntil: a probe that never passes", () => {
  it("fails with the last error and the last lines of every log named", async () => {
    const [a, b] = [join(dir, "a.log"), join(dir, "b.log")];
    writeFileSync(a, "started\nbatch 3 not acknowledged\n");
    writeFileSync(b, "store resumed\n");
    const failing = waitUntil("count", () => Promise.reject(new Error("counted 6")), {
      timeoutMs: 100,
      intervalMs: 20,
      logFile: [a, b],
    });
    await expect(failing).rejects.toThrow(
      `count not ready after 100 ms: Error: counted 6\n` +
        `--- last lines of ${a} ---\nstarted\nbatch 3 not acknowledged\n` +
        `--- last lines of ${b} ---\nstore resumed`,
    );
  });
});

describe("freePort: a port for a process about to start", () => {
  const listen = (port: number, host: string) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(port, host, () => resolve(server));
    });
  const close = (server: Server) => new Promise((resolve) => server.close(resolve));

  it("draws below the kernel's ephemeral range, where outgoing connections cannot take it first", async () => {
    const ephemeralFrom = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralFrom);
    }
    // ... and each can be listened on, on every interface, as the services do.
    await close(await listen(ports[0], "0.0.0.0"));
  });

  it("passes over a port something listens on, on loopback or on every interface", async () => {
    // Two ports to draw from, both free a moment ago; the first is then taken on loopback only,
    // which still stops a listen on every interface.
    // (A range of one port gives that port back only if it binds.)
    let base = await freePort();
    while ((await freePort({ from: base + 1, below: base + 2 })) !== base + 1) base = await freePort();
    const taken = await listen(base, "127.0.0.1");
    try {
      const drawn = await Promise.all(Array.from({ length: 10 }, () => freePort({ from: base, below: base + 2 })));
      expect(new Set(drawn)).toEqual(new Set([base + 1]));
    } finally {
      await close(taken);
    }
  });

  it("falls back to a port the kernel hands out when it has no port to draw from", async () => {
    const port = await freePort({ from: 30_000, below: 30_000 });
    expect(port).toBeGreaterThan(0);
    await close(await listen(port, "0.0.0.0"));
  });
});

/** Waits until the log holds `text`, written by a process that runs beside the test. */
function untilLogHas(logFile: string, text: string): Promise<void> {
  return waitUntil(
    `"${text}" in ${logFile}`,
    async () => {
      if (!readFileSync(logFile, "utf8").includes(text)) throw new Error("not yet");
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

describe("spawnManaged: a process's output", () => {
  it("is written to its log by the process itself, appended, with nothing passing through the launcher", async () => {
    const logFile = join(dir, "own.log");
    writeFileSync(logFile, "from an earlier start\n");
    const script = [
      'process.stdout.write("to stdout\\n");',
      'process.stderr.write("to stderr\\n");',
      "setInterval(() => {}, 1000);",
    ].join(" ");
    const proc = spawnManaged("writer", process.execPath, ["-e", script], { logFile });
    try {
      // No pipe to read: the child's stdout and stderr are the log file itself.
      expect(proc.child.stdout).toBeNull();
      expect(proc.child.stderr).toBeNull();
      await untilLogHas(logFile, "to stderr");
      expect(readlinkSync(`/proc/${proc.child.pid}/fd/1`)).toBe(realpathSync(logFile));
      expect(readlinkSync(`/proc/${proc.child.pid}/fd/2`)).toBe(realpathSync(logFile));
      expect(readFileSync(logFile, "utf8")).toBe("from an earlier start\nto stdout\nto stderr\n");
    } finally {
      await proc.stop();
    }
  });

  it("names a command that cannot be started in the log", async () => {
    const logFile = join(dir, "absent-command.log");
    const proc = spawnManaged("absent", join(dir, "no-such-command"), [], { logFile });
    const code = await new Promise((resolve) => proc.child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(readFileSync(logFile, "utf8")).toMatch(/no-such-command: No such file or directory\n$/);
  });
});

describe("spawnManaged: a process whose launcher dies", () => {
  it("is sent SIGTERM when the launcher dies without stopping it", async () => {
    const logFile = join(dir, "orphan.log");
    writeFileSync(logFile, "");
    // A launcher of its own (this test's process must live on), starting a process through spawnManaged from this
    // source, compiled as it is required, then killed outright: no stop, no exit handler.
    const child = [
      'process.on("SIGTERM", () => { process.stdout.write("terminated\\n"); process.exit(0); });',
      'process.stdout.write("started\\n");',
      "setInterval(() => {}, 1000);",
    ].join(" ");
    const launcherScript = [
      'const { transformFileSync } = require("@swc/core");',
      'require.extensions[".ts"] = (module, file) => module._compile(transformFileSync(file, {',
      '  jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }).code, file);',
      `const { spawnManaged } = require(${JSON.stringify(join(__dirname, "processes.ts"))});`,
      `const proc = spawnManaged("orphan", process.execPath, ["-e", ${JSON.stringify(child)}], {`,
      `  logFile: ${JSON.stringify(logFile)} });`,
      "process.stdout.write(String(proc.child.pid));",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const launcher = spawn(process.execPath, ["-e", launcherScript], { stdio: ["ignore", "pipe", "inherit"] });
    let pid = 0;
    try {
      pid = Number(
        await new Promise<string>((resolve) => launcher.stdout.once("data", (data) => resolve(String(data)))),
      );
      await untilLogHas(logFile, "started");
      launcher.kill("SIGKILL");
      await untilLogHas(logFile, "terminated");
      expect(readFileSync(logFile, "utf8")).toBe("started\nterminated\n");
    } finally {
      launcher.kill("SIGKILL");
      if (pid > 0) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone, as it should be.
        }
      }
    }
  });
});

describe("spawnManaged: a process below the launcher's CPU priority", () => {
  /** A Node process that lives until stopped; Node starts its platform's threads before any script runs. */
  const idle = (niceness?: number) =>
    spawnManaged("idle", process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      logFile: join(dir, "idle.log"),
      niceness,
    });
  const threadsOf = async (pid: number) => {
    // Node's own threads (V8's platform workers, libuv's) start with it; wait until they are there.
    await waitUntil(
      "threads",
      async () => {
        if (threadNiceness(pid).size < 5) throw new Error("still starting");
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    return threadNiceness(pid);
  };

  it("runs every thread of the process at the niceness asked, from its start", async () => {
    const proc = idle(10);
    try {
      const threads = await threadsOf(proc.child.pid!);
      // One pid: nice became the command (its threads are the command's own), each niced.
      expect(readFileSync(`/proc/${proc.child.pid}/cmdline`, "utf8").split("\0")[0]).toBe(process.execPath);
      expect(new Set(threads.values())).toEqual(new Set([nicenessBelowOwn(10)]));
    } finally {
      await proc.stop();
    }
  });

  it("runs at the launcher's own priority without it", async () => {
    const proc = idle();
    try {
      expect(new Set((await threadsOf(proc.child.pid!)).values())).toEqual(new Set([nicenessBelowOwn(0)]));
    } finally {
      await proc.stop();
    }
  });
});
