import { spawn, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from "node:fs";
import { createServer } from "node:net";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A child process the stack started and must stop. */
export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Where freePort draws from unless told otherwise: above the well-known and registered ports in common use. */
const PORTS_FROM = 20_000;

/**
 * A free port for a process about to be started (a store, a service, a fault run's stand-in).
 *
 * Port 0 would have the kernel hand one out from its ephemeral range, the range every outgoing
 * connection draws its own port from too: on a busy machine one of them can take the port between
 * this check and the process's own listen, which then fails with EADDRINUSE. So the port is drawn at
 * random below that range (`range.below`, the range's first port by default) and kept only if it can
 * be bound on every interface; port 0 is the fallback when the range is unknown, too small, or taken.
 */
export async function freePort(range: { from: number; below: number } = portsBelowEphemeral()): Promise<number> {
  for (let attempt = 0; attempt < 20 && range.below > range.from; attempt++) {
    const port = randomInt(range.from, range.below);
    if (await bindable(port)) return port;
  }
  return listenedPort(0);
}

function bindable(port: number): Promise<boolean> {
  return listenedPort(port).then(
    () => true,
    () => false,
  );
}

/** The ports below the kernel's ephemeral range (Linux), or none where it cannot be read. */
function portsBelowEphemeral(): { from: number; below: number } {
  try {
    const [first] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    return { from: PORTS_FROM, below: Number(first) || 0 };
  } catch {
    return { from: PORTS_FROM, below: 0 };
  }
}

/** Listens on `port` on every interface, closes again, and gives the port that was bound. */
function listenedPort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "0.0.0.0", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Spawns a long-running process with its output appended to `logFile`. The process writes to the file itself: its
 * stdout and stderr are the file, opened for appending, so no line passes through the launcher (a pipe would wake the
 * launcher for each line a service logs, every request's access line included, and the launcher would write it again).
 * With `niceness`, the process runs that much below the launcher's CPU priority from its first instruction: through
 * coreutils' `nice`, which sets it and then becomes the command (same pid), so every thread the process ever starts
 * inherits it. (Lowering a running process's priority reaches only the threads that exist then; Linux keeps a priority
 * per thread.)
 * The process is also started through util-linux's `setpriv --pdeathsig TERM`, which becomes the command the same way:
 * the kernel sends it SIGTERM when the launcher dies without stopping it (killed, or crashed, as a test runner can), so
 * no store or service outlives the launcher that started it.
 */
export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string; niceness?: number },
): ManagedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const niceness = options.niceness ?? 0;
  const niced = niceness > 0 ? ["nice", "-n", String(niceness), command, ...args] : [command, ...args];
  const log = openSync(options.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn("setpriv", ["--pdeathsig", "TERM", "--", ...niced], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", log, log],
    });
  } finally {
    // The child has its own copy of the descriptor (or none, if it could not be started).
    closeSync(log);
  }
  child.once("error", (err) => appendFileSync(options.logFile, `spawn error: ${err.message}\n`));
  return {
    name,
    child,
    stop: (graceMs) => stopChild(child, graceMs),
  };
}

/** SIGTERM, then SIGKILL if the child has not exited within `graceMs`. Resolves with its exit code once it exited. */
export async function stopChild(child: ChildProcess, graceMs = 12_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/**
 * `work`, or a rejection with the signal's reason as soon as `signal` aborts (what `work` does
 * after that is ignored, its failure included).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Polls `probe` until it resolves, and resolves with what it resolved with; fails with the last error after
 * `timeoutMs`, or with the signal's reason as soon as `signal` aborts. A probe says "not yet" by throwing (its
 * message is the one a timeout reports).
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T>,
  options: {
    timeoutMs: number;
    intervalMs?: number;
    process?: ManagedProcess;
    /** Logs whose last lines a failure carries (a temporary stack's logs are gone once it is stopped). */
    logFile?: string | readonly string[];
    signal?: AbortSignal;
  },
): Promise<T> {
  const { signal } = options;
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (options.process && options.process.child.exitCode !== null) {
      throw new Error(`${what} exited with code ${options.process.child.exitCode}${logHint(options.logFile)}`);
    }
    try {
      return await untilAborted(probe(), signal);
    } catch (err) {
      signal?.throwIfAborted();
      lastError = err;
    }
    await sleep(options.intervalMs ?? 200, undefined, { signal }).catch((err: unknown) => {
      signal?.throwIfAborted();
      throw err;
    });
  }
  throw new Error(`${what} not ready after ${options.timeoutMs} ms: ${String(lastError)}${logHint(options.logFile)}`);
}

function logHint(logFile?: string | readonly string[]): string {
  const files = logFile === undefined ? [] : typeof logFile === "string" ? [logFile] : logFile;
  return files.map((file) => `\n--- last lines of ${file} ---\n${logTail(file)}`).join("");
}

/** How much of a log's end `logTail` reads. */
const LOG_TAIL_BYTES = 16 * 1024;

/** The last `lines` lines of a log file (read from its last 16 KB), or a note saying why it could not be read. */
export function logTail(file: string, lines = 30): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const length = Math.min(size, LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch (err) {
    return `(not readable: ${(err as Error).message})`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
