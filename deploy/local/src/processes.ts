import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { dirname } from "node:path";

/** A child process the stack started and must stop. */
export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Asks the kernel for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Spawns a long-running process with its output appended to `logFile`. */
export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string },
): ManagedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.once("error", (err) => log.write(`spawn error: ${err.message}\n`));
  return {
    name,
    child,
    async stop(graceMs = 12_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      log.end();
      return code;
    },
  };
}

/** Polls `probe` until it resolves, failing with the last error after `timeoutMs`. */
export async function waitUntil(
  what: string,
  probe: () => Promise<unknown>,
  options: { timeoutMs: number; intervalMs?: number; process?: ManagedProcess; logFile?: string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (options.process && options.process.child.exitCode !== null) {
      throw new Error(`${what} exited with code ${options.process.child.exitCode}${logHint(options.logFile)}`);
    }
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
  }
  throw new Error(`${what} not ready after ${options.timeoutMs} ms: ${String(lastError)}${logHint(options.logFile)}`);
}

function logHint(logFile?: string): string {
  return logFile ? ` (see ${logFile})` : "";
}
