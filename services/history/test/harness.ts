import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { freePort, logPath, startFerretDb, testMongoUri, testStoresDir, type MongoServer } from "@odds/local";
import { callUnary, createGrpcClient, createLogger, startGrpcServer, type RunningGrpcServer } from "@odds/platform";
import { type common, history, v1 } from "@odds/proto";
import { Archiver } from "../src/archiver";
import { BookStateStore } from "../src/book-states";
import { EventRefStore } from "../src/event-refs";
import { TickReader } from "../src/reader";
import { QuoteRecorder } from "../src/recorder";
import { HistoryFiles } from "../src/files/history-files";
import { historyRpc, historyServiceDefinition } from "../src/rpc";
import { DAY_MS } from "../src/ticks";
import type { TickLayout } from "../src/tick-tier";
import { connectHistoryStores, type HistoryStores } from "../src/tier-stores";

export const logger = createLogger("history-test", "silent");

/**
 * Every FerretDB a test file started, stopped after its tests however they ended: a test that fails
 * before its own `stop` (or a `beforeAll` that fails after starting one) must not leave a server
 * running past the test run. Stopping a stopped server does nothing.
 */
const ownServers: MongoServer[] = [];
afterAll(async () => {
  await Promise.all(ownServers.splice(0).map((server) => server.stop()));
});

/** A FerretDB of the test's own, so a test can stop it (archive down, live down). */
export async function startOwnFerretDb(name: string): Promise<MongoServer & { restart(): Promise<MongoServer> }> {
  const port = await freePort();
  const dataDir = join(testStoresDir(), `${name}-${randomBytes(3).toString("hex")}`);
  const start = async () => {
    const server = await startFerretDb({ name, port, dataDir, logFile: logPath(dataDir, name) });
    ownServers.push(server);
    return server;
  };
  const server = await start();
  return { ...server, restart: start };
}

export interface HistoryUnderTest {
  client: history.HistoryServiceClient;
  stores: HistoryStores;
  archiver: Archiver;
  /** A recorder over the same stores but with empty memory, as after a restart. */
  freshRecorder(): QuoteRecorder;
  record(request: Partial<history.RecordQuotesRequest>): Promise<history.RecordQuotesResponse>;
  /** `deadlineMs` overrides the client's default 60 s for a call that legitimately scans a lot. */
  list(
    request: Partial<history.ListTicksRequest>,
    deadlineMs?: number,
  ): Promise<{ items: Tick[]; nextCursor: string; notice: string; tag: string; unchanged: boolean }>;
  stop(): Promise<void>;
}

/** A contract OddsHistoryTick as a client sees it. */
export interface Tick {
  eventID: string;
  oddID: string;
  bookmakerID: string;
  changedAt: string;
  kind: string;
  bookOdds: string | null;
  decimalOdds: number | null;
  previousBookOdds: string | null;
  previousDecimalOdds: number | null;
  line: number | null;
  isMainLine: boolean | null;
  layOdds: number | null;
  maxStake: number | null;
  previousMaxStake: number | null;
}

export const EVERYTHING: common.Caller = {
  keyId: "test",
  tier: "internal",
  allSports: true,
  sportIds: [],
  allLeagues: true,
  leagueIds: [],
  allBookmakers: true,
  bookmakerIds: [],
  fairOdds: true,
};

/** The history service wired as main.ts wires it, on an in-process gRPC server on port 0, with a real client. */
export async function startHistory(options: {
  liveUri?: string;
  archiveUri: string;
  readCapPerTier?: number;
  archiveReadTimeoutMs?: number;
  liveReadTimeoutMs?: number;
  layout?: TickLayout;
  /** The code's release its page tags name (main.ts: `serviceRelease`). */
  release?: string;
  /** The reader's clock (the present for windows and retention, and the age of a page's listing). */
  now?: () => number;
}): Promise<HistoryUnderTest> {
  const stores = await connectHistoryStores(
    { live: options.liveUri ?? testMongoUri("history_live"), archive: options.archiveUri },
    logger,
    options.layout,
  );
  const books = new BookStateStore(stores.live);
  const eventRefs = new EventRefStore(stores.liveDb);
  await eventRefs.prepare();
  const recorder = new QuoteRecorder(stores.live, books, eventRefs);
  const reader = new TickReader(stores.live, stores.archive, eventRefs, {
    liveRetentionDays: 28,
    archiveReadTimeoutMs: options.archiveReadTimeoutMs ?? 1_500,
    liveReadTimeoutMs: options.liveReadTimeoutMs ?? 3_000,
    ...(options.readCapPerTier ? { readCapPerTier: options.readCapPerTier } : {}),
    historyStarts: new v1.HistoryStarts(v1.DEFAULT_CONVERTED_LEAGUES),
    ...(options.release === undefined ? {} : { release: options.release }),
    ...(options.now ? { now: options.now } : {}),
  });
  const archiver = new Archiver(stores.live, stores.archive, { retentionDays: 28, batchSize: 500, logger });
  const server: RunningGrpcServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "odds.history.v1.HistoryService",
        definition: historyServiceDefinition,
        implementation: historyRpc(logger, {
          recorder,
          reader,
          files: HistoryFiles.over(stores, eventRefs, reader, new v1.HistoryStarts(v1.DEFAULT_CONVERTED_LEAGUES)),
        }),
      },
    ],
    logger,
  });
  const client = createGrpcClient(history.HistoryServiceClient, `127.0.0.1:${server.port}`, {
    defaultDeadlineMs: 60_000,
  });
  return {
    client,
    stores,
    archiver,
    freshRecorder: () =>
      new QuoteRecorder(stores.live, new BookStateStore(stores.live), new EventRefStore(stores.liveDb)),
    record: (request) => callUnary(client, client.recordQuotes, history.RecordQuotesRequest.fromPartial(request)),
    async list(request, deadlineMs) {
      const page = await callUnary(
        client,
        client.listTicks,
        history.ListTicksRequest.fromPartial({ caller: EVERYTHING, ...request }),
        deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs },
      );
      return {
        items: page.items.map((item) => JSON.parse(Buffer.from(item).toString("utf8")) as Tick),
        nextCursor: page.nextCursor,
        notice: page.notice,
        tag: page.tag ?? "",
        unchanged: page.unchanged ?? false,
      };
    },
    async stop() {
      client.close();
      await server.shutdown(1_000);
      await stores.close();
    },
  };
}

/** Reads every page of a query and concatenates them. */
export async function readAllPages(
  service: HistoryUnderTest,
  request: Partial<history.ListTicksRequest>,
): Promise<{ items: Tick[]; pages: number }> {
  const items: Tick[] = [];
  let cursor = "";
  let pages = 0;
  do {
    const page = await service.list({ ...request, cursor });
    // A degraded page (a tier past its deadline) is not a paging result: say so instead of comparing short series.
    if (page.notice !== "") throw new Error(`page ${pages + 1} was degraded: ${page.notice}`);
    items.push(...page.items);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== "" && pages < 1_000);
  return { items, pages };
}

let eventSeq = 0;

/** A fresh event id (own series per test) kicking off at `startsAtMs`. */
export function newEvent(startsAtMs: number, leagueID = "AFL"): history.EventRef {
  eventSeq += 1;
  const day = new Date(startsAtMs).toISOString().slice(0, 10);
  return {
    eventId: `${leagueID}_${day}_team_${eventSeq}_${randomBytes(2).toString("hex")}_vs_other`,
    sportId: leagueID === "AFL" ? "AUSSIE_RULES" : "SOCCER",
    leagueId: leagueID,
    startsAtMs,
  };
}

export function quote(oddId: string, decimalOdds: number, extra: Partial<history.Quote> = {}): history.Quote {
  return history.Quote.fromPartial({ oddId, decimalOdds, available: true, ...extra });
}

export function snapshot(
  event: history.EventRef,
  observedAtMs: number,
  quotes: history.Quote[],
  book: { bookmakerId?: string; sourceId?: string; sourceRank?: number } = {},
): history.BookSnapshot {
  return history.BookSnapshot.fromPartial({
    eventId: event.eventId,
    bookmakerId: book.bookmakerId ?? "sportsbet",
    sourceId: book.sourceId ?? "feed-a",
    sourceRank: book.sourceRank ?? 10,
    observedAtMs,
    quotes,
  });
}

export const NOW = Date.now();
/** A whole minute some days before now (ticks land on exact minutes). */
export function daysAgo(days: number, minute = 0): number {
  return Math.floor((NOW - days * DAY_MS) / 60_000) * 60_000 + minute * 60_000;
}

export const ML_HOME = "points-home-game-ml-home";
export const ML_AWAY = "points-away-game-ml-away";
export const TOTAL_OVER = "points-all-game-ou-over";
