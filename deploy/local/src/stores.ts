import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";
import { createClient } from "redis";
import { spawnManaged, waitUntil, type ManagedProcess } from "./processes";

/** deploy/local/bin/ferretdb-local, built by deploy/local/build-ferretdb.sh. */
export const FERRETDB_BINARY = resolve(__dirname, "..", "bin", "ferretdb-local");

export interface MongoServer extends ManagedProcess {
  /** mongodb://127.0.0.1:<port> (append /<database>). */
  readonly url: string;
  readonly port: number;
}

export interface RedisServer extends ManagedProcess {
  readonly url: string;
  readonly port: number;
}

/**
 * Waits until a store just spawned answers; one that does not (it failed, or `signal` aborted the
 * start) is stopped before the error is passed on, so a failed start leaves nothing running.
 */
async function readyOrStopped(proc: ManagedProcess, ready: () => Promise<void>): Promise<void> {
  try {
    await ready();
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

/** Starts the embedded FerretDB (SQLite backend) on a loopback port and waits until it answers ping. */
export async function startFerretDb(options: {
  name?: string;
  port: number;
  dataDir: string;
  logFile: string;
  signal?: AbortSignal;
}): Promise<MongoServer> {
  const name = options.name ?? "ferretdb";
  const proc = spawnManaged(name, FERRETDB_BINARY, ["-listen", `127.0.0.1:${options.port}`, "-data", options.dataDir], {
    logFile: options.logFile,
  });
  const url = `mongodb://127.0.0.1:${options.port}`;
  await readyOrStopped(proc, () =>
    waitUntil(
      name,
      async () => {
        const client = new MongoClient(url, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
        try {
          await client.db("admin").command({ ping: 1 });
        } finally {
          await client.close();
        }
      },
      { timeoutMs: 30_000, process: proc, logFile: options.logFile, signal: options.signal },
    ),
  );
  return { ...proc, url, port: options.port };
}

/** Starts Debian's redis-server on a loopback port; `persist` keeps an append-only file in dataDir. */
export async function startRedis(options: {
  port: number;
  dataDir: string;
  logFile: string;
  persist: boolean;
  signal?: AbortSignal;
}): Promise<RedisServer> {
  const args = [
    "--port",
    String(options.port),
    "--bind",
    "127.0.0.1",
    "--dir",
    options.dataDir,
    "--daemonize",
    "no",
    "--save",
    "",
    "--appendonly",
    options.persist ? "yes" : "no",
  ];
  const { mkdirSync } = await import("node:fs");
  mkdirSync(options.dataDir, { recursive: true });
  const proc = spawnManaged("redis", "redis-server", args, { logFile: options.logFile });
  const url = `redis://127.0.0.1:${options.port}`;
  await readyOrStopped(proc, () =>
    waitUntil(
      "redis",
      async () => {
        const client = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
        // Failures reach connect() and ping(); a probe left behind by an aborted start must not throw on its own.
        client.on("error", () => undefined);
        try {
          await client.connect();
          await client.ping();
        } finally {
          if (client.isOpen) await client.quit();
        }
      },
      { timeoutMs: 15_000, process: proc, logFile: options.logFile, signal: options.signal },
    ),
  );
  return { ...proc, url, port: options.port };
}

export function logPath(dataDir: string, name: string): string {
  return join(dataDir, "logs", `${name}.log`);
}
