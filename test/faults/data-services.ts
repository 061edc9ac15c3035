// The write path as real processes for fault runs: events, history and catalogue on their own
// databases of a FerretDB of the test's own, and ingest writing into them (the shared stack is left alone).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  freePort,
  grpcServing,
  removeScratchFolder,
  REPO_ROOT,
  scratchFolder,
  spawnManaged,
  startFerretDb,
  superviseRestarts,
  waitUntil,
  type ManagedProcess,
  type MongoServer,
  type SupervisedProcess,
} from "@odds/local";
import { MongoClient } from "mongodb";

/** A service process started cold on a loaded 2-core machine may take this long to serve. */
export const SERVICE_START_MS = 150_000;

export interface WritePath {
  /** Database names on the FerretDB, suffixed by the run's name. */
  readonly databases: { events: string; history: string; historyArchive: string; catalogue: string };
  readonly ports: { events: number; history: number; catalogue: number };
  readonly ingestLog: string;
  /** Starts ingest (restarted by the launcher's supervisor when it dies, as `npm start` does). */
  startIngest(env: Record<string, string>, notify?: (message: string) => void): SupervisedProcess;
  /** The history service's environment, for the archiver job run against the same tiers. */
  readonly historyEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** A service's process; `traced` preloads the tracing SDK as the stack does (it exports only with an endpoint set). */
export function nodeService(
  dir: string,
  name: string,
  entry: string,
  env: Record<string, string>,
  traced = false,
): ManagedProcess {
  const preload = traced ? ["--require", "@odds/platform/tracing/register"] : [];
  return spawnManaged(name, process.execPath, [...preload, join(REPO_ROOT, "services", entry)], {
    cwd: REPO_ROOT,
    logFile: join(dir, `${name}.log`),
    env: { ...process.env, LOG_LEVEL: "info", ...env },
  });
}

/** Starts events, history (archiving off unless asked) and catalogue for one run and waits until they serve. */
export async function startWritePath(
  store: Pick<FaultStore, "dir" | "ferret">,
  run: string,
  historyExtra: Record<string, string> = {},
): Promise<WritePath> {
  const { dir, ferret: mongo } = store;
  const databases = {
    events: `events_${run}`,
    history: `history_${run}`,
    historyArchive: `history_archive_${run}`,
    catalogue: `catalogue_${run}`,
  };
  const ports = { events: await freePort(), history: await freePort(), catalogue: await freePort() };
  const historyEnv = {
    HISTORY_LIVE_MONGODB_URI: `${mongo.url}/${databases.history}`,
    HISTORY_ARCHIVE_MONGODB_URI: `${mongo.url}/${databases.historyArchive}`,
    ARCHIVE_INTERVAL_MS: "0",
    ...historyExtra,
  };
  const services: ManagedProcess[] = [
    nodeService(dir, `events-${run}`, "events/dist/main.js", {
      GRPC_PORT: String(ports.events),
      EVENTS_MONGODB_URI: `${mongo.url}/${databases.events}`,
    }),
    nodeService(dir, `history-${run}`, "history/dist/main.js", { GRPC_PORT: String(ports.history), ...historyEnv }),
    nodeService(dir, `catalogue-${run}`, "catalogue/dist/main.js", {
      GRPC_PORT: String(ports.catalogue),
      CATALOGUE_MONGODB_URI: `${mongo.url}/${databases.catalogue}`,
    }),
  ];
  const names = ["events", "history", "catalogue"] as const;
  try {
    await Promise.all(
      names.map((name, i) =>
        waitUntil(`${name}-${run}`, () => grpcServing(ports[name]), {
          timeoutMs: SERVICE_START_MS,
          intervalMs: 250,
          process: services[i],
          logFile: join(dir, `${name}-${run}.log`),
        }),
      ),
    );
  } catch (err) {
    // A service that never served: stop the others rather than leave them running past the test.
    await Promise.all(services.map((proc) => proc.stop(5_000)));
    throw err;
  }
  const ingestLog = join(dir, `ingest-${run}.log`);
  const ingestPort = await freePort();
  return {
    databases,
    ports,
    ingestLog,
    historyEnv,
    startIngest(env, notify = () => undefined) {
      const ingest = superviseRestarts(
        `ingest-${run}`,
        () =>
          nodeService(dir, `ingest-${run}`, "ingest/dist/main.js", {
            GRPC_PORT: String(ingestPort),
            EVENTS_SERVICE_ADDR: `127.0.0.1:${ports.events}`,
            HISTORY_SERVICE_ADDR: `127.0.0.1:${ports.history}`,
            CATALOGUE_SERVICE_ADDR: `127.0.0.1:${ports.catalogue}`,
            ...env,
          }),
        { notify },
      );
      services.push(ingest);
      return ingest;
    },
    async stop() {
      await Promise.all([...services].reverse().map((proc) => proc.stop(5_000)));
    },
  };
}

/** One line of ingest's JSON log, the fields fault runs read. */
export interface IngestLogLine {
  msg?: string;
  cycleID?: string;
  events?: number;
  eventsChanged?: number;
  pending?: Record<string, number>;
}

/** Every JSON line of an ingest log so far (none before the file exists). */
export function ingestLogLines(file: string): IngestLogLine[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as IngestLogLine);
}

/** Log lines of the ingest process started `start` times before the current one (0: the first). */
export function linesOfStart(file: string, start: number): IngestLogLine[] {
  const starts = ingestLogLines(file).reduce<IngestLogLine[][]>((runs, line) => {
    if (line.msg === "ingest starting") runs.push([]);
    runs.at(-1)?.push(line);
    return runs;
  }, []);
  return starts[start] ?? [];
}

/** Resolves once the ingest process of that start logged its backfill and first cycle written. */
export function ingestServing(file: string, start: number, timeoutMs: number): Promise<void> {
  return waitUntil(
    `ingest start ${start} serving (${file})`,
    async () => {
      if (!linesOfStart(file, start).some((line) => line.msg === "backfill and first cycle written; SERVING"))
        throw new Error("not yet");
    },
    { timeoutMs, intervalMs: 500 },
  );
}

export interface FaultStore {
  /** The run's folder: the FerretDB's data and every process's log. */
  dir: string;
  ferret: MongoServer;
  /** A client to read what the run wrote. */
  mongo: MongoClient;
  /** Closes the client, stops the FerretDB and removes the folder (KEEP_TEST_DATA=1 keeps it). */
  stop(): Promise<void>;
}

/** A FerretDB of a fault run's own in a fresh scratch folder, and a client to read what the run wrote. */
export async function startFaultStore(name: string): Promise<FaultStore> {
  const dir = scratchFolder(`odds-faults-${name}-`);
  const ferret = await startFerretDb({
    name: `ferretdb-${name}`,
    port: await freePort(),
    dataDir: join(dir, "ferretdb"),
    logFile: join(dir, "ferretdb.log"),
  });
  const mongo = await MongoClient.connect(ferret.url);
  return {
    dir,
    ferret,
    mongo,
    async stop() {
      await mongo.close();
      await ferret.stop(5_000);
      removeScratchFolder(dir);
    },
  };
}
