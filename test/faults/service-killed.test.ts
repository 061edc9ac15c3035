// A data service SIGKILLed under load. Each service runs here as a second replica of the shared
// stack's (same stores), restarted by the launcher's supervisor when it dies, with an edge of its own
// pointed at it; keep-alive clients hit a route it serves while it is killed and comes back.
import { freePort, grpcServing, superviseRestarts, waitUntil, type SupervisedProcess } from "@odds/local";
import { e2eStack } from "../support/e2e";
import { EDGE_START_MS, startEdgeBeside } from "../support/edge-process";
import { nodeService, SERVICE_START_MS } from "./data-services";

const CLIENTS = 4;
/** No answer may take longer than the edge's downstream deadline (5 s) plus room for a loaded machine. */
const ANSWER_WITHIN_MS = 15_000;
/** A stack trace or a store's or gRPC's own text in a body. */
const LEAKED = /\n\s+at |node:internal|Mongo|ECONNREFUSED|UNAVAILABLE|No connection established/;

type DataService = "events" | "history" | "catalogue" | "usage";

interface Outcome {
  status?: number;
  ms: number;
  body?: string;
  error?: string;
}

/** The service's environment as the stack gives it, on the shared stack's stores, on its own port. */
function replicaEnv(name: DataService, port: number): Record<string, string> {
  const { uris } = e2eStack();
  const stores: Record<DataService, Record<string, string>> = {
    events: { EVENTS_MONGODB_URI: uris.events ?? "" },
    history: {
      HISTORY_LIVE_MONGODB_URI: uris.historyLive ?? "",
      HISTORY_ARCHIVE_MONGODB_URI: uris.historyArchive ?? "",
      ARCHIVE_INTERVAL_MS: "0",
    },
    catalogue: { CATALOGUE_MONGODB_URI: uris.catalogue ?? "" },
    usage: { USAGE_MONGODB_URI: uris.usage ?? "", REDIS_URL: uris.redis ?? "" },
  };
  return { GRPC_PORT: String(port), LOG_LEVEL: "warn", ...stores[name] };
}

const ADDR_VARIABLE: Record<DataService, string> = {
  events: "EVENTS_SERVICE_ADDR",
  history: "HISTORY_SERVICE_ADDR",
  catalogue: "CATALOGUE_SERVICE_ADDR",
  usage: "USAGE_SERVICE_ADDR",
};

/** A path served by the service; `i` varies the query so the edge's answer cache cannot hide the outage. */
async function routeOf(name: DataService): Promise<(i: number) => string> {
  const { baseUrl, apiKeys } = e2eStack();
  const res = await fetch(`${baseUrl}/events/?limit=1`, { headers: { "x-api-key": apiKeys.internal } });
  const eventID = ((await res.json()) as { data: { eventID: string }[] }).data[0]?.eventID ?? "";
  const paths: Record<DataService, (i: number) => string> = {
    events: (i) => `/events/?limit=${1 + (i % 50)}`,
    history: (i) => `/odds/history/?eventID=${eventID}&limit=${1 + (i % 50)}`,
    catalogue: (i) => `/teams/?limit=${1 + (i % 50)}`,
    usage: () => `/account/usage`,
  };
  return paths[name];
}

describe.each<DataService>(["events", "history", "catalogue", "usage"])("%s SIGKILLed under load", (name) => {
  let replica: SupervisedProcess | undefined;
  let stopEdge: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await stopEdge?.();
    await replica?.stop(5_000);
  });

  it(
    "the edge answers clean envelope errors meanwhile, the launcher restarts it, the API recovers by itself",
    async () => {
      const stack = e2eStack();
      const port = await freePort();
      const notices: string[] = [];
      replica = superviseRestarts(
        `${name}-replica`,
        () => nodeService(stack.dataDir, `${name}-replica-${port}`, `${name}/dist/main.js`, replicaEnv(name, port)),
        { notify: (message) => notices.push(message) },
      );
      const served = replica;
      await waitUntil(`${name} replica`, () => grpcServing(port), {
        timeoutMs: SERVICE_START_MS,
        intervalMs: 250,
        process: served,
      });
      const edge = await startEdgeBeside({ [ADDR_VARIABLE[name]]: `127.0.0.1:${port}` });
      stopEdge = () => edge.proc.stop(5_000);
      const path = await routeOf(name);
      const get = async (i: number): Promise<Outcome> => {
        const started = Date.now();
        try {
          const res = await fetch(`${edge.baseUrl}${path(i)}`, {
            headers: { "x-api-key": stack.apiKeys.internal },
            signal: AbortSignal.timeout(60_000),
          });
          return { status: res.status, body: await res.text(), ms: Date.now() - started };
        } catch (err) {
          const cause = (err as { cause?: { code?: string } }).cause;
          return { error: `${(err as Error).name} ${cause?.code ?? (err as Error).message}`, ms: Date.now() - started };
        }
      };
      expect((await get(0)).status).toBe(200);

      const outcomes: Outcome[] = [];
      let loading = true;
      const client = async (c: number) => {
        for (let i = c; loading; i += CLIENTS) outcomes.push(await get(i));
      };
      const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const killedPid = served.child.pid;
      served.child.kill("SIGKILL");
      // Under load until the restarted replica serves again, then a little longer.
      await waitUntil(`${name} restarted`, () => grpcServing(port), {
        timeoutMs: SERVICE_START_MS,
        intervalMs: 250,
      });
      await waitUntil(
        "the edge serves the route again",
        async () => {
          if ((await get(0)).status !== 200) throw new Error("not yet");
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      loading = false;
      await load;

      expect(served.restarts).toBe(1);
      expect(served.child.pid).not.toBe(killedPid);
      expect(notices).toEqual([
        expect.stringMatching(new RegExp(`^${name}-replica exited \\(SIGKILL\\); restarting in \\d+ ms$`)),
        `${name}-replica restarted (restart 1)`,
      ]);
      // No reset, no hang, nothing but the contract's statuses in its envelope, nothing leaked.
      expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
      expect(outcomes.filter((o) => o.ms > ANSWER_WITHIN_MS)).toEqual([]);
      const failed = outcomes.filter((o) => o.status !== 200);
      for (const o of failed) {
        const body = JSON.parse(o.body ?? "") as { success?: unknown; error?: unknown };
        expect([o.status, body.success, typeof body.error]).toEqual([expect.any(Number), false, "string"]);
        expect([500, 503]).toContain(o.status);
        expect(o.body).not.toMatch(LEAKED);
      }
      expect(outcomes.length).toBeGreaterThan(CLIENTS * 3);
      expect((await get(1)).status).toBe(200);
    },
    SERVICE_START_MS * 2 + EDGE_START_MS + 120_000,
  );
});
