import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { connect } from "node:http2";
import { join } from "node:path";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { common, events } from "@odds/proto";
import pino from "pino";
import {
  callUnary,
  createGrpcClient,
  currentThenChanges,
  FLOW_CONTROL_WINDOW_BYTES,
  InvalidArgumentError,
  NotFoundError,
  serverStreamingHandler,
  startGrpcServer,
  unaryHandler,
  type RunningGrpcServer,
} from "@odds/platform";

const logger = pino({ level: "silent" });
const emptyPage = common.JsonPage.create();

/** What the test service's WatchFeedStatus streams: its current status, then each one emitted as "status". */
const feedStatuses = new EventEmitter();
let currentStatus = events.FeedStatus.create({ lastCycleAtMs: 1 });
let openWatches = 0;

/** A tiny EventsService whose behaviour is chosen by the request's type field. */
function testImplementation(): Partial<events.EventsServiceServer> {
  return {
    listEvents: unaryHandler(logger, async (request: events.ListEventsRequest) => {
      if (request.type === "bad") throw new InvalidArgumentError("type", "expected match, tournament or prop");
      if (request.type === "missing") throw new NotFoundError("no such event");
      if (request.type === "crash") throw new Error("secret internal detail");
      // Far beyond the client's default deadline; unref'd so a cancelled call holds nothing open.
      if (request.type === "slow") await new Promise((r) => setTimeout(r, 20_000).unref());
      return { ...emptyPage, nextCursor: `type=${request.type}` };
    }),
    applyCycle: unaryHandler(logger, async () => ({ upserted: 0, unchanged: 0 })),
    getFeedStatus: unaryHandler(logger, async () => events.FeedStatus.create()),
    watchFeedStatus: serverStreamingHandler(logger, async function* (_request, _call, cancelled) {
      openWatches += 1;
      try {
        yield* currentThenChanges(feedStatuses, "status", () => currentStatus, cancelled);
      } finally {
        openWatches -= 1;
      }
    }),
  };
}

describe("gRPC server and client wiring", () => {
  let server: RunningGrpcServer;
  let client: events.EventsServiceClient;

  beforeAll(async () => {
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      services: [
        {
          name: "odds.events.v1.EventsService",
          definition: events.EventsServiceService,
          implementation: testImplementation() as events.EventsServiceServer,
        },
      ],
    });
    client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${server.port}`, {
      // Generous enough for a loaded machine (name resolution alone took 0.2 s under load), far below "slow".
      defaultDeadlineMs: 3_000,
    });
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1_000);
  });

  const list = (type: string) => callUnary(client, client.listEvents, events.ListEventsRequest.create({ type }));
  const failure = async (type: string) =>
    (await list(type).then(
      () => undefined,
      (err: ServiceError) => err,
    )) as ServiceError;

  it("gives every connection the clients' receive window, per stream and for the connection", async () => {
    // A client's big write call crosses in as many round trips as the server's window allows: HTTP/2's 64 KB
    // made ingest's 12 MB calls take a second each to reach an idle server.
    const session = connect(`http://127.0.0.1:${server.port}`);
    try {
      await once(session, "remoteSettings");
      // The widened settings and the connection's window update may follow the server's first SETTINGS frame.
      const windows = () => [session.remoteSettings.initialWindowSize, session.state.remoteWindowSize];
      const widened = [FLOW_CONTROL_WINDOW_BYTES, FLOW_CONTROL_WINDOW_BYTES];
      for (let attempt = 0; attempt < 500 && windows().some((w, i) => w !== widened[i]); attempt++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(windows()).toEqual(widened);
    } finally {
      session.destroy();
    }
  });

  it("resolves a unary call with the handler's response", async () => {
    await expect(list("match")).resolves.toMatchObject({ nextCursor: "type=match" });
  });

  it("sends domain errors with their gRPC status and message", async () => {
    expect(await failure("bad")).toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: "type: expected match, tournament or prop",
    });
    expect(await failure("missing")).toMatchObject({ code: status.NOT_FOUND });
  });

  it("sends an unexpected error as INTERNAL without its message, never UNKNOWN", async () => {
    const err = await failure("crash");
    expect(err.code).toBe(status.INTERNAL);
    expect(err.details).not.toContain("secret");
  });

  it("puts a default deadline on every client call", async () => {
    expect((await failure("slow")).code).toBe(status.DEADLINE_EXCEEDED);
  });

  it("streams a watch's current value, then each change in order, and stops watching when the caller cancels", async () => {
    const watch = client.watchFeedStatus({}, new Metadata(), { deadline: Infinity });
    const received = watch[Symbol.asyncIterator]();
    expect((await received.next()).value).toEqual(events.FeedStatus.create({ lastCycleAtMs: 1 }));
    expect(openWatches).toBe(1);
    // Longer than the client's default deadline between changes: a watch has none.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    currentStatus = events.FeedStatus.create({ lastCycleAtMs: 2 });
    feedStatuses.emit("status", currentStatus);
    feedStatuses.emit("status", events.FeedStatus.create({ lastCycleAtMs: 3 }));
    expect((await received.next()).value).toMatchObject({ lastCycleAtMs: 2 });
    expect((await received.next()).value).toMatchObject({ lastCycleAtMs: 3 });

    // Cancelled while the server waits for the next change: the server stops waiting and lets the emitter go.
    const ended = once(watch, "error");
    watch.cancel();
    const [cancelledError] = (await ended) as [ServiceError];
    expect(cancelledError.code).toBe(status.CANCELLED);
    for (let attempt = 0; attempt < 200 && openWatches > 0; attempt++) await new Promise((r) => setTimeout(r, 10));
    expect([openWatches, feedStatuses.listenerCount("status")]).toEqual([0, 0]);
  });
});

/**
 * A real process serving the test EventsService from the compiled platform library: its `listEvents` is the
 * handler written in `listEvents` (JavaScript, with `common` and `events` of the proto library in scope), and
 * `afterStart` runs with `server`, `logger` and the library as `p`. Resolves once it listens.
 */
async function serverProcess(listEvents: string, afterStart = ""): Promise<{ child: ChildProcess; port: number }> {
  const script = `
    const { common, events } = require(${JSON.stringify(join(__dirname, "../../../proto/dist/index.js"))});
    const p = require(${JSON.stringify(join(__dirname, "../dist/index.js"))});
    const logger = p.createLogger("grpc-test", "silent");
    (async () => {
      const impl = {
        listEvents: p.unaryHandler(logger, ${listEvents}),
        applyCycle: p.unaryHandler(logger, async () => ({ upserted: 0, unchanged: 0 })),
        getFeedStatus: p.unaryHandler(logger, async () => events.FeedStatus.create()),
      };
      const server = await p.startGrpcServer({ host: "127.0.0.1", port: 0, logger, services: [{ name: "odds.events.v1.EventsService", definition: events.EventsServiceService, implementation: impl }] });
      ${afterStart}
      process.stdout.write(String(server.port) + "\\n");
    })();`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once("data", (d) => resolve(Number(String(d).trim()))),
  );
  return { child, port };
}

describe("graceful shutdown", () => {
  it("on SIGTERM drains the in-flight call, refuses new ones and exits 0", async () => {
    // A slow handler, and the process's lifecycle draining the server on SIGTERM.
    const { child, port } = await serverProcess(
      `async () => { await new Promise((r) => setTimeout(r, 800)); return common.JsonPage.create({ nextCursor: "drained" }); }`,
      `const lifecycle = new p.Lifecycle(logger, 10000);
      lifecycle.onShutdown("grpc", () => server.shutdown(8000));
      lifecycle.listen();`,
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${port}`, {
      defaultDeadlineMs: 5_000,
    });
    try {
      const inFlight = callUnary(client, client.listEvents, events.ListEventsRequest.create({}));
      await new Promise((r) => setTimeout(r, 200));
      child.kill("SIGTERM");
      await expect(inFlight).resolves.toMatchObject({ nextCursor: "drained" });
      expect(await exited).toBe(0);
      const late = await callUnary(client, client.listEvents, events.ListEventsRequest.create({})).catch(
        (err: ServiceError) => err,
      );
      expect((late as ServiceError).code).toBe(status.UNAVAILABLE);
    } finally {
      client.close();
      child.kill("SIGKILL");
    }
  });
});

describe("calls that arrive together", () => {
  it("answers each as soon as it is made, not once the last of them is", async () => {
    // Another process, so that this one receives while the server computes: a handler that computes for 300 ms
    // without waiting, then says when it started and ended.
    const { child, port } = await serverProcess(`async () => {
      const startedAt = Date.now();
      while (Date.now() < startedAt + 300);
      return common.JsonPage.create({ nextCursor: JSON.stringify({ startedAt, endedAt: Date.now() }) });
    }`);
    const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${port}`, { defaultDeadlineMs: 10_000 });
    try {
      await callUnary(client, client.listEvents, events.ListEventsRequest.create({})); // connected
      // Sent in one turn, so they reach the server in one write and its gRPC server hands it both in one turn.
      const answered = await Promise.all(
        [0, 1].map(async () => {
          const page = await callUnary(client, client.listEvents, events.ListEventsRequest.create({}));
          const arrivedAt = Date.now();
          return { ...(JSON.parse(page.nextCursor) as { startedAt: number; endedAt: number }), arrivedAt };
        }),
      );
      const [made, next] = answered.sort((a, b) => a.endedAt - b.endedAt);
      expect(next.startedAt).toBeGreaterThanOrEqual(made.endedAt); // one after the other
      // The first answer was here while the server was still making the second.
      expect(made.arrivedAt).toBeLessThan(next.endedAt);
    } finally {
      client.close();
      child.kill("SIGKILL");
    }
  });
});
