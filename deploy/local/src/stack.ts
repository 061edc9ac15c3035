import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { credentials, makeClientConstructor, type Client, type ServiceError } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { freePort, spawnManaged, untilAborted, waitUntil, type ManagedProcess } from "./processes";
import { superviseRestarts } from "./supervisor";
import { serviceMallocEnv } from "./malloc";
import { nodeFlagsFor } from "./node-flags";
import { SERVICE_NICENESS } from "./priority";
import { moveDatabase } from "./move-database";
import { logPath, startFerretDb, startRedis, type MongoServer, type RedisServer } from "./stores";

/** The repository root (deploy/local/dist or deploy/local/src -> ../../..). */
export const REPO_ROOT = resolve(__dirname, "..", "..", "..");

/** The local stack's cursor secret unless CURSOR_SECRET is set; deployments bring their own (the Helm Secret). */
export const DEV_CURSOR_SECRET = "local-development-cursor-secret-not-for-deployment";

export const SERVICE_NAMES = ["usage", "events", "history", "catalogue", "ingest", "edge"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export type Tier = "lite" | "base" | "pro" | "internal";

export interface StackPorts {
  edge: number;
  events: number;
  history: number;
  catalogue: number;
  usage: number;
  ingest: number;
  /** FerretDB of events, catalogue, usage and ingest. */
  mongo: number;
  /** FerretDB of history's live tier (its writes are the heaviest of a cycle: apart from the events store). */
  mongoHistory: number;
  mongoArchive: number;
  redis: number;
}

/** Local defaults, chosen to stay clear of a system MongoDB (27017) and Redis (6379). */
export const DEFAULT_PORTS: StackPorts = {
  edge: 8080,
  events: 50051,
  history: 50052,
  catalogue: 50053,
  usage: 50054,
  ingest: 50055,
  mongo: 27117,
  mongoArchive: 27118,
  mongoHistory: 27119,
  redis: 6390,
};

export interface StackOptions {
  /** Where stores, logs and dev keys live; survives restarts. */
  dataDir: string;
  /** "free" picks unused loopback ports (tests); otherwise the given ports. */
  ports: StackPorts | "free";
  /** Ingest's upstream sources file (SOURCES_FILE); unset = the committed simulated sources. */
  sourcesFile?: string;
  /** Extra environment per service (for example a faster ingest cycle in tests). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * Node flags per service, after its own (`SERVICE_NODE_FLAGS`) and before its entry point: the benchmark
   * compares V8 settings with them.
   */
  nodeFlags?: Partial<Record<ServiceName, readonly string[]>>;
  /** Persist Redis to disk (local stack) or not (tests). */
  persistRedis?: boolean;
  /** How long a service may take to serve (ingest: its backfill and first cycle); 5 minutes by default. */
  readyTimeoutMs?: number;
  onProgress?: (message: string) => void;
  /**
   * Aborting it while the stack starts (Ctrl-C in a command that owns the stack) stops every process
   * started so far, then rejects with the signal's reason: an interrupted start leaves nothing running.
   */
  signal?: AbortSignal;
}

export interface RunningStack {
  readonly baseUrl: string;
  readonly ports: StackPorts;
  readonly apiKeys: Record<Tier, string>;
  readonly dataDir: string;
  readonly mongo: MongoServer;
  readonly mongoHistory: MongoServer;
  readonly mongoArchive: MongoServer;
  readonly redis: RedisServer;
  /** Connection strings each service was given. */
  readonly uris: Record<
    "events" | "historyLive" | "historyArchive" | "catalogue" | "usage" | "ingest" | "redis",
    string
  >;
  service(name: ServiceName): ManagedProcess;
  /** Stops the archive FerretDB (fault runs) and starts it again on the same port and data. */
  stopArchive(): Promise<void>;
  startArchive(): Promise<void>;
  stop(): Promise<void>;
}

async function resolvePorts(ports: StackPorts | "free"): Promise<StackPorts> {
  if (ports !== "free") return ports;
  const entries = await Promise.all(Object.keys(DEFAULT_PORTS).map(async (k) => [k, await freePort()] as const));
  return Object.fromEntries(entries) as unknown as StackPorts;
}

/** Dev keys live in the data folder: generated once, printed every start, seeded into usage as hashes. */
function loadDevKeys(dataDir: string): Record<Tier, string> {
  const file = join(dataDir, "dev-keys.json");
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Record<Tier, string>>) : {};
  const mint = (tier: Tier) => kept[tier] ?? `odds_${tier}_${randomBytes(18).toString("base64url")}`;
  const keys = { lite: mint("lite"), base: mint("base"), pro: mint("pro"), internal: mint("internal") };
  if (Object.keys(kept).length === Object.keys(keys).length) return keys;
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
}

const HealthClient = makeClientConstructor(healthService, "grpc.health.v1.Health") as unknown as new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => Client & {
  check(req: { service: string }, cb: (err: ServiceError | null, res: { status: string | number }) => void): void;
};

/** Resolves when the gRPC service on this loopback port says SERVING by the health protocol. */
export function grpcServing(port: number): Promise<void> {
  const client = new HealthClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise<void>((resolveCheck, reject) => {
    client.check({ service: "" }, (err, res) => {
      client.close();
      if (err) return reject(err);
      return res.status === "SERVING" || res.status === 1 ? resolveCheck() : reject(new Error(`status ${res.status}`));
    });
  });
}

type StoreUris = RunningStack["uris"];

/** Starts the stores and every service as separate real processes and waits for all health checks. */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const progress = options.onProgress ?? (() => undefined);
  const { signal } = options;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const ports = await resolvePorts(options.ports);
  const apiKeys = loadDevKeys(dataDir);
  const started: ManagedProcess[] = [];
  try {
    progress("starting stores (FerretDB x3: shared, history live, history archive; redis-server)");
    const stores = await startStores(dataDir, ports, options.persistRedis ?? true, signal);
    started.push(stores.mongo, stores.mongoHistory, stores.mongoArchive, stores.redis);
    const uris = storeUris(stores);
    // A move cut short is redone on the next start (its marker file).
    await untilAborted(moveHistoryLiveTier(dataDir, stores, uris, progress), signal);
    const env = serviceEnvironment(ports, uris, apiKeys, options);
    const processes = new Map<ServiceName, ManagedProcess>();
    const launch = async (name: ServiceName) => {
      signal?.throwIfAborted();
      const proc = superviseService(name, dataDir, env[name], options.nodeFlags?.[name] ?? [], progress);
      processes.set(name, proc);
      started.push(proc);
      await waitUntil(name, () => healthCheck(name, ports), {
        // Ingest serves once its backfill is written: minutes on a busy machine, so the bound is generous.
        timeoutMs: options.readyTimeoutMs ?? 300_000,
        process: proc,
        logFile: logPath(dataDir, name),
        signal,
      });
      progress(`${name} is healthy`);
    };
    // Owners of data first, then the writers and the edge that depend on them.
    await Promise.all((["usage", "events", "history", "catalogue"] as const).map(launch));
    await Promise.all((["ingest", "edge"] as const).map(launch));
    return runningStack({ ports, apiKeys, dataDir, stores, uris, processes, started });
  } catch (err) {
    await stopAll(started);
    throw err;
  }
}

interface Stores {
  mongo: MongoServer;
  mongoHistory: MongoServer;
  mongoArchive: MongoServer;
  redis: RedisServer;
}

/** The stack's FerretDB servers, by name (each one's data folder and log): shared, history live, history archive. */
export const FERRETDB_STORES = ["ferretdb", "ferretdb-history", "ferretdb-archive"] as const;

/** A FerretDB of the stack: its name is its data folder and its log's name. */
function ferretOptions(dataDir: string, name: (typeof FERRETDB_STORES)[number], port: number, signal?: AbortSignal) {
  return { name, port, dataDir: join(dataDir, name), logFile: logPath(dataDir, name), signal };
}

/** Starts the four stores together; if one fails (or `signal` aborts), those that started are stopped. */
async function startStores(
  dataDir: string,
  ports: StackPorts,
  persistRedis: boolean,
  signal: AbortSignal | undefined,
): Promise<Stores> {
  const starting = [
    startFerretDb(ferretOptions(dataDir, "ferretdb", ports.mongo, signal)),
    startFerretDb(ferretOptions(dataDir, "ferretdb-history", ports.mongoHistory, signal)),
    startFerretDb(ferretOptions(dataDir, "ferretdb-archive", ports.mongoArchive, signal)),
    startRedis({
      port: ports.redis,
      dataDir: join(dataDir, "redis"),
      logFile: logPath(dataDir, "redis"),
      persist: persistRedis,
      signal,
    }),
  ] as const;
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((result) => result.status === "rejected");
  if (failed) {
    await stopAll(settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])));
    throw failed.reason;
  }
  const [mongo, mongoHistory, mongoArchive, redis] = await Promise.all(starting);
  return { mongo, mongoHistory, mongoArchive, redis };
}

/** The live tier's database name; before `ferretdb-history` it lived on the shared `ferretdb`. */
const HISTORY_LIVE_DATABASE = "history";

function storeUris({ mongo, mongoHistory, mongoArchive, redis }: Stores): StoreUris {
  return {
    events: `${mongo.url}/events`,
    historyLive: `${mongoHistory.url}/${HISTORY_LIVE_DATABASE}`,
    historyArchive: `${mongoArchive.url}/history_archive`,
    catalogue: `${mongo.url}/catalogue`,
    usage: `${mongo.url}/usage`,
    ingest: `${mongo.url}/ingest`,
    redis: redis.url,
  };
}

/**
 * A data folder from before the live tier had its own FerretDB keeps its ticks in `ferretdb/`:
 * they are moved to `ferretdb-history/` before history starts, so no tick is lost or rebuilt.
 */
async function moveHistoryLiveTier(
  dataDir: string,
  stores: Stores,
  uris: StoreUris,
  progress: (message: string) => void,
): Promise<void> {
  const moved = await moveDatabase(`${stores.mongo.url}/${HISTORY_LIVE_DATABASE}`, uris.historyLive, {
    markerFile: join(dataDir, "ferretdb-history", "moving-from-ferretdb"),
    onProgress: progress,
  });
  if (moved.outcome === "moved") {
    progress(
      `history live tier moved from ferretdb/ to ferretdb-history/: ${moved.documents} documents in ${moved.collections} collections`,
    );
  } else if (moved.outcome === "both-hold-data") {
    progress(
      "WARNING: ferretdb/ still holds a history database beside ferretdb-history/'s: history serves ferretdb-history/; " +
        "the old one is left untouched (drop it, or remove ferretdb-history/ to move it again)",
    );
  }
}

/** Each service's environment: its port, its stores, the addresses of the services it calls, then the caller's extras. */
function serviceEnvironment(
  ports: StackPorts,
  uris: StoreUris,
  apiKeys: Record<Tier, string>,
  options: StackOptions,
): Record<ServiceName, Record<string, string>> {
  const addr = (port: number) => `127.0.0.1:${port}`;
  const env: Record<ServiceName, Record<string, string>> = {
    usage: {
      GRPC_PORT: String(ports.usage),
      USAGE_MONGODB_URI: uris.usage,
      REDIS_URL: uris.redis,
      BOOTSTRAP_API_KEYS: JSON.stringify(
        (Object.keys(apiKeys) as Tier[]).map((tier) => ({
          apiKey: apiKeys[tier],
          tier,
          email: `dev-${tier}@localhost`,
        })),
      ),
    },
    events: { GRPC_PORT: String(ports.events), EVENTS_MONGODB_URI: uris.events },
    history: {
      GRPC_PORT: String(ports.history),
      HISTORY_LIVE_MONGODB_URI: uris.historyLive,
      HISTORY_ARCHIVE_MONGODB_URI: uris.historyArchive,
    },
    catalogue: { GRPC_PORT: String(ports.catalogue), CATALOGUE_MONGODB_URI: uris.catalogue },
    ingest: {
      GRPC_PORT: String(ports.ingest),
      EVENTS_SERVICE_ADDR: addr(ports.events),
      HISTORY_SERVICE_ADDR: addr(ports.history),
      CATALOGUE_SERVICE_ADDR: addr(ports.catalogue),
      INGEST_MONGODB_URI: uris.ingest,
      ...(options.sourcesFile ? { SOURCES_FILE: resolve(options.sourcesFile) } : {}),
    },
    edge: {
      HTTP_PORT: String(ports.edge),
      EVENTS_SERVICE_ADDR: addr(ports.events),
      HISTORY_SERVICE_ADDR: addr(ports.history),
      CATALOGUE_SERVICE_ADDR: addr(ports.catalogue),
      USAGE_SERVICE_ADDR: addr(ports.usage),
      REDIS_URL: uris.redis,
      CURSOR_SECRET: process.env.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    },
  };
  for (const name of SERVICE_NAMES) Object.assign(env[name], options.serviceEnv?.[name]);
  return env;
}

/** One service as a process restarted with backoff when it dies, as Kubernetes would; stdout says so. */
function superviseService(
  name: ServiceName,
  dataDir: string,
  env: Record<string, string>,
  nodeFlags: readonly string[],
  progress: (message: string) => void,
): ManagedProcess {
  const logFile = logPath(dataDir, name);
  return superviseRestarts(
    name,
    () =>
      spawnManaged(
        name,
        process.execPath,
        [
          ...nodeFlagsFor(name, nodeFlags),
          "--require",
          "@odds/platform/tracing/register",
          join(REPO_ROOT, "services", name, "dist", "main.js"),
        ],
        {
          cwd: REPO_ROOT,
          logFile,
          env: { ...serviceMallocEnv(name), ...process.env, OTEL_SERVICE_NAME: name, ...env },
          niceness: SERVICE_NICENESS[name],
        },
      ),
    { notify: progress },
  );
}

/** The edge is healthy when /v2/health answers; every other service by the gRPC health protocol. */
async function healthCheck(name: ServiceName, ports: StackPorts): Promise<void> {
  if (name !== "edge") return grpcServing(ports[name]);
  const res = await fetch(`http://127.0.0.1:${ports.edge}/v2/health`);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

function runningStack(parts: {
  ports: StackPorts;
  apiKeys: Record<Tier, string>;
  dataDir: string;
  stores: Stores;
  uris: StoreUris;
  processes: Map<ServiceName, ManagedProcess>;
  started: ManagedProcess[];
}): RunningStack {
  const { ports, apiKeys, dataDir, stores, uris, processes, started } = parts;
  let archive = stores.mongoArchive;
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: `http://127.0.0.1:${ports.edge}/v2`,
    ports,
    apiKeys,
    dataDir,
    mongo: stores.mongo,
    mongoHistory: stores.mongoHistory,
    get mongoArchive() {
      return archive;
    },
    redis: stores.redis,
    uris,
    service(name) {
      const proc = processes.get(name);
      if (!proc) throw new Error(`service ${name} is not running`);
      return proc;
    },
    async stopArchive() {
      await archive.stop();
    },
    async startArchive() {
      archive = await startFerretDb(ferretOptions(dataDir, "ferretdb-archive", ports.mongoArchive));
      started.push(archive);
    },
    /** Stops everything once; a second call (an interrupt beside the owner's own stop) waits for the same stop. */
    stop() {
      stopped ??= stopAll(started);
      return stopped;
    },
  };
}

/** Services in reverse start order (edge and ingest first), stores last. */
async function stopAll(processes: ManagedProcess[]): Promise<void> {
  for (const proc of [...processes].reverse()) await proc.stop();
}
