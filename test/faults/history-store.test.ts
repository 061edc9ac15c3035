// History's live tier on a FerretDB of its own (as the local stack runs it), hung and stopped under
// a running edge: history answers clean errors within its deadline, every other route keeps serving
// (the events store is another server), and history serves again by itself once the store is back.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort, grpcServing, startFerretDb, waitUntil, type ManagedProcess, type MongoServer } from "@odds/local";
import { e2eStack } from "../support/e2e";
import { startEdgeBeside } from "../support/edge-process";
import { nodeService, SERVICE_START_MS } from "./data-services";

/** History's live-read deadline (1.5 s here) plus room for a loaded machine. */
const ANSWER_WITHIN_MS = 8_000;
const LEAKED = /\n\s+at |node:internal|Mongo|ECONNREFUSED|UNAVAILABLE|No connection established/;

let dir: string;
let livePort: number;
let liveStore: MongoServer;
let history: ManagedProcess;
let edge: { baseUrl: string; proc: ManagedProcess };
let eventID: string;
/** What history answers for the probed event with its store healthy (this live tier starts empty). */
let healthyStatus: number;
let query = 0;

const startLiveStore = () =>
  startFerretDb({
    name: "ferretdb-history-faults",
    port: livePort,
    dataDir: join(dir, "ferretdb-history"),
    logFile: join(dir, "ferretdb-history.log"),
  });

interface Answer {
  status: number;
  ms: number;
  body: string;
}

async function get(path: string): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${edge.baseUrl}${path}`, {
    headers: { "x-api-key": e2eStack().apiKeys.internal },
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: await res.text(), ms: Date.now() - started };
}

/** A query the edge's answer cache has not seen, so the answer comes from the history service. */
const historyPage = () => get(`/odds/history/?eventID=${eventID}&limit=${1 + (query++ % 4000)}`);
const eventsPage = () => get(`/events/?limit=${1 + (query++ % 50)}`);

function expectCleanFailureInTime(answer: Answer): void {
  const body = JSON.parse(answer.body) as { success?: unknown; error?: unknown };
  expect([answer.status, body.success, typeof body.error, answer.ms < ANSWER_WITHIN_MS]).toEqual([
    expect.any(Number),
    false,
    "string",
    true,
  ]);
  expect([500, 503]).toContain(answer.status);
  expect(answer.body).not.toMatch(LEAKED);
}

async function historyServesAgain(): Promise<void> {
  await waitUntil(
    "history serves again",
    async () => {
      const answer = await historyPage();
      if (answer.status !== healthyStatus) throw new Error(`HTTP ${answer.status}`);
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

beforeAll(async () => {
  const stack = e2eStack();
  dir = join(stack.dataDir, `faults-history-store-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  livePort = await freePort();
  const historyPort = await freePort();
  liveStore = await startLiveStore();
  history = nodeService(dir, `history-${historyPort}`, "history/dist/main.js", {
    GRPC_PORT: String(historyPort),
    HISTORY_LIVE_MONGODB_URI: `${liveStore.url}/history`,
    HISTORY_ARCHIVE_MONGODB_URI: stack.uris.historyArchive ?? "",
    ARCHIVE_INTERVAL_MS: "0",
    LIVE_READ_TIMEOUT_MS: "1500",
    LOG_LEVEL: "warn",
  });
  await waitUntil("history on its own live store", () => grpcServing(historyPort), {
    timeoutMs: SERVICE_START_MS,
    intervalMs: 250,
    process: history,
  });
  edge = await startEdgeBeside({ HISTORY_SERVICE_ADDR: `127.0.0.1:${historyPort}`, DOWNSTREAM_DEADLINE_MS: "3000" });
  const res = await fetch(`${stack.baseUrl}/events/?limit=1`, { headers: { "x-api-key": stack.apiKeys.internal } });
  eventID = ((await res.json()) as { data: { eventID: string }[] }).data[0]!.eventID;
  healthyStatus = (await historyPage()).status;
}, SERVICE_START_MS * 2);

afterAll(async () => {
  liveStore?.child.kill("SIGCONT");
  await edge?.proc.stop(5_000);
  await history?.stop(5_000);
  await liveStore?.stop(5_000);
});

describe("history's live store (its own FerretDB) hung and stopped under a running edge", () => {
  it("answers for the probed event with the store healthy (the baseline the recovery is held to)", () => {
    expect([200, 404]).toContain(healthyStatus);
  });

  it("hung (SIGSTOP): history answers a clean error within its deadline, /events/ keeps serving, then recovers", async () => {
    liveStore.child.kill("SIGSTOP");
    try {
      for (let i = 0; i < 3; i += 1) expectCleanFailureInTime(await historyPage());
      const events = await eventsPage();
      expect([events.status, events.ms < ANSWER_WITHIN_MS]).toEqual([200, true]);
    } finally {
      liveStore.child.kill("SIGCONT");
    }
    await historyServesAgain();
  });

  it("stopped (process gone): clean errors in time, /events/ keeps serving; restarted on its data, history serves again", async () => {
    await liveStore.stop(5_000);
    for (let i = 0; i < 3; i += 1) expectCleanFailureInTime(await historyPage());
    const events = await eventsPage();
    expect([events.status, events.ms < ANSWER_WITHIN_MS]).toEqual([200, true]);
    liveStore = await startLiveStore();
    await historyServesAgain();
  });
});
