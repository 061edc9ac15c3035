import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { freePort, startRedis, testStoresDir, type RedisServer } from "@odds/local";
import {
  createGrpcClient,
  currentThenChanges,
  type KeyRevisions,
  NotFoundError,
  serverStreamingHandler,
  startGrpcServer,
  UnavailableError,
  unaryHandler,
  type GrpcServiceBinding,
  type Logger,
  metricsRegistry,
  type RunningGrpcServer,
} from "@odds/platform";
import { common, events, usage } from "@odds/proto";
import pino from "pino";
import { createClient } from "redis";
import type { RedisClient } from "../src/ratelimit/rate-limiter";

/** One labelled series of a counter as the metrics registry holds it (0 before it is first counted). */
export async function countedBy(metric: string, label: string, value: string): Promise<number> {
  const found = await metricsRegistry.getSingleMetric(metric)?.get();
  return found?.values.find((series) => series.labels[label] === value)?.value ?? 0;
}

/** Items of pages gzipped in segments so far, by whether their segment was made or reused. */
export async function gzipSegmentsCounted(): Promise<{ made: number; reused: number }> {
  const count = (kind: string) => countedBy("edge_answer_gzip_segments_total", "kind", kind);
  return { made: await count("made"), reused: await count("reused") };
}

/** An error exactly as a grpc-js client reports a failed call. */
export function grpcError(code: status, details = ""): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

export const hashOf = (apiKey: string) => createHash("sha256").update(apiKey).digest("hex");

export function plan(tier: string, limits: usage.WindowLimit[] = []): usage.Plan {
  return usage.Plan.create({
    tier,
    allSports: true,
    allLeagues: tier !== "lite",
    leagueIds: tier === "lite" ? ["AFL", "NRL", "EPL"] : [],
    allBookmakers: tier !== "lite",
    bookmakerIds: tier === "lite" ? ["sportsbet", "tab", "ladbrokes_au", "neds"] : [],
    fairOdds: tier !== "lite",
    history: tier === "pro" || tier === "internal",
    maxStreams: tier === "pro" || tier === "internal" ? 2 : 0,
    limits,
  });
}

/**
 * An in-process usage service holding keys in memory, reached over real gRPC. `change` alters a
 * key's record and writes its revision to Redis with `revisions`, as the usage service does.
 */
export class FakeUsageService {
  readonly keys = new Map<string, usage.ResolveKeyResponse>();
  readonly recorded: usage.RecordUsageRequest[] = [];
  resolveCalls = 0;
  /** While set, key lookups fail UNAVAILABLE, as while the usage service's pod is replaced. */
  unavailable = false;
  revisions: KeyRevisions | undefined;

  add(
    apiKey: string,
    tier: string,
    options: { isActive?: boolean; limits?: usage.WindowLimit[]; email?: string } = {},
  ) {
    const keyHash = hashOf(apiKey);
    this.keys.set(keyHash, {
      key: usage.KeyRecord.create({
        keyId: keyHash.slice(0, 16),
        tier,
        isActive: options.isActive ?? true,
        email: options.email ?? "",
      }),
      plan: plan(tier, options.limits),
    });
    return keyHash.slice(0, 16);
  }

  /** Changes a key's record (or removes it), then writes the key's new revision. */
  async change(apiKey: string, change: Partial<Pick<usage.KeyRecord, "isActive" | "email">> | "removed") {
    const keyHash = hashOf(apiKey);
    const held = this.keys.get(keyHash);
    if (!held?.key || !this.revisions) throw new Error("change needs a known key and revisions");
    if (change === "removed") this.keys.delete(keyHash);
    else this.keys.set(keyHash, { ...held, key: { ...held.key, ...change } });
    await this.revisions.changed(held.key.keyId);
  }

  implementation(logger: Logger): usage.UsageServiceServer {
    return {
      resolveKey: unaryHandler(logger, async (req: usage.ResolveKeyRequest) => {
        this.resolveCalls += 1;
        if (this.unavailable) throw new UnavailableError("usage store unreachable");
        const found = this.keys.get(req.keyHash);
        if (!found) throw new NotFoundError("unknown API key");
        return found;
      }),
      recordUsage: unaryHandler(logger, async (req: usage.RecordUsageRequest) => {
        this.recorded.push(req);
        return {};
      }),
      createKey: unaryHandler(logger, async () => ({ apiKey: "", key: undefined })),
      setKeyActive: unaryHandler(logger, async () => usage.KeyRecord.create()),
      listKeys: unaryHandler(logger, async () => ({ keys: [] })),
    };
  }
}

/**
 * An in-process events service answering GetFeedStatus and WatchFeedStatus (each watch is told of
 * every `lastCycleAtMs` set), ListEvents with an empty page (held while `listEventsGate` is set, its
 * calls counted), and ListEventsV1 with the documents in `v1Items` (by v1 event id, whatever the view)
 * for the requested ids; every ListEventsV1 call is kept.
 */
export class FakeFeed {
  private cycleAtMs = 0;
  private readonly statuses = new EventEmitter().setMaxListeners(0);
  private watchesEnded = new AbortController();
  /** WatchFeedStatus calls open now, and opened in all. */
  openWatches = 0;
  watchesOpened = 0;

  get lastCycleAtMs(): number {
    return this.cycleAtMs;
  }

  set lastCycleAtMs(cycleAtMs: number) {
    this.cycleAtMs = cycleAtMs;
    this.statuses.emit("status", this.status());
  }

  /** Ends every open watch, as a stopping replica does; later watches are served again. */
  endWatches(): void {
    this.watchesEnded.abort();
    this.watchesEnded = new AbortController();
  }

  private status(): events.FeedStatus {
    return { lastCycleAtMs: this.cycleAtMs, eventCount: 3, lastCycleId: "", lastCycleObservedAtMs: this.cycleAtMs };
  }

  readonly v1Items = new Map<string, object>();
  readonly v1Reads: events.ListEventsV1Request[] = [];
  /** The connection each of `v1Reads` came on. */
  readonly v1ReadPeers: string[] = [];
  /** Runs as each ListEventsV1 call is answered (a cycle landing while the read is in flight). */
  beforeV1Answer: (() => void) | undefined;
  /** ListEvents calls being answered now, the most at once, and the calls in the order they came. */
  listEventsInFlight = 0;
  listEventsMostAtOnce = 0;
  readonly reads: events.ListEventsRequest[] = [];
  /** The connection (the client's address and port, as gRPC names the peer) each of `reads` came on, in order. */
  readonly readPeers: string[] = [];
  /** The connection of each GetFeedStatus call, in order. */
  readonly statusPeers: string[] = [];
  /** While set, every ListEvents call waits for it (an empty page then). */
  listEventsGate: Promise<void> | undefined;
  implementation(logger: Logger): Partial<events.EventsServiceServer> {
    return {
      listEvents: unaryHandler(logger, async (req: events.ListEventsRequest, call) => {
        this.reads.push(req);
        this.readPeers.push(call.getPeer());
        this.listEventsInFlight += 1;
        this.listEventsMostAtOnce = Math.max(this.listEventsMostAtOnce, this.listEventsInFlight);
        try {
          await this.listEventsGate;
          return common.JsonPage.create();
        } finally {
          this.listEventsInFlight -= 1;
        }
      }),
      getFeedStatus: unaryHandler(logger, async (_request, call) => {
        this.statusPeers.push(call.getPeer());
        return this.status();
      }),
      watchFeedStatus: serverStreamingHandler(logger, (_request, _call, cancelled) => this.watch(cancelled)),
      listEventsV1: unaryHandler(logger, async (req: events.ListEventsV1Request, call) => {
        this.v1Reads.push(req);
        this.v1ReadPeers.push(call.getPeer());
        this.beforeV1Answer?.();
        const found = req.eventIds.flatMap((id) => {
          const item = this.v1Items.get(id);
          return item ? [Buffer.from(JSON.stringify(item))] : [];
        });
        return common.JsonPage.create({ items: found, cycleAtMs: this.cycleAtMs });
      }),
    };
  }

  private async *watch(cancelled: AbortSignal): AsyncGenerator<events.FeedStatus> {
    const ended = AbortSignal.any([cancelled, this.watchesEnded.signal]);
    this.openWatches += 1;
    this.watchesOpened += 1;
    try {
      yield* currentThenChanges(this.statuses, "status", () => this.status(), ended);
    } finally {
      this.openWatches -= 1;
    }
  }
}

/** The fake events service as a gRPC server binding. */
export function eventsBinding(feed: FakeFeed, logger: Logger): GrpcServiceBinding {
  return {
    name: "odds.events.v1.EventsService",
    definition: events.EventsServiceService,
    implementation: feed.implementation(logger) as events.EventsServiceServer,
  };
}

export async function startDownstreams(logger: Logger, fakeUsage: FakeUsageService, feed: FakeFeed) {
  const server: RunningGrpcServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        name: "odds.usage.v1.UsageService",
        definition: usage.UsageServiceService,
        implementation: fakeUsage.implementation(logger),
      },
      eventsBinding(feed, logger),
    ],
  });
  const address = `127.0.0.1:${server.port}`;
  return {
    server,
    usageClient: createGrpcClient(usage.UsageServiceClient, address, {
      defaultDeadlineMs: 2_000,
    }),
    eventsClient: createGrpcClient(events.EventsServiceClient, address, {
      defaultDeadlineMs: 2_000,
    }),
  };
}

/** A pino logger whose lines are kept in memory, to prove what is and is not logged. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

/**
 * A redis-server of the test's own (one it may stop with SIGSTOP, or whose commands it counts), and a
 * client of it that fails at once while it is down.
 */
export async function startOwnRedis(name: string): Promise<{ server: RedisServer; client: RedisClient }> {
  const port = await freePort();
  const dir = join(testStoresDir(), `${name}-${port}`);
  const server = await startRedis({ port, dataDir: dir, logFile: join(dir, "redis.log"), persist: false });
  const client = createClient({ url: server.url, disableOfflineQueue: true });
  client.on("error", () => undefined);
  await client.connect();
  return { server, client };
}
