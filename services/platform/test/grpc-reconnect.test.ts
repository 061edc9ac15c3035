import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { waitUntil } from "@odds/local";
import { common, events } from "@odds/proto";
import pino from "pino";
import { callUnary, createGrpcClient, startGrpcServer, unaryHandler, type RunningGrpcServer } from "@odds/platform";

const logger = pino({ level: "silent" });

/** An EventsService whose pages say which server answered, after `workMs` of work (so calls are in flight). */
function serve(port: number, name = "served", workMs = 0): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port,
    logger,
    services: [
      {
        name: "odds.events.v1.EventsService",
        definition: events.EventsServiceService,
        implementation: {
          listEvents: unaryHandler(logger, async () => {
            if (workMs > 0) await sleep(workMs);
            return common.JsonPage.create({ nextCursor: name });
          }),
          applyCycle: unaryHandler(logger, async () => ({ upserted: 0, unchanged: 0 })),
          getFeedStatus: unaryHandler(logger, async () => events.FeedStatus.create()),
        },
      },
    ],
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A Service's cluster address as kube-proxy makes it: each new connection goes to the endpoint of
 * the moment, an established one stays with the endpoint it was opened to.
 */
class ClusterAddress {
  private endpoint = 0;
  private readonly links = new Set<{ endpoint: number; client: Socket; upstream: Socket; silent: boolean }>();
  private readonly server = createServer((client) => {
    const upstream = connect(this.endpoint, "127.0.0.1");
    const link = { endpoint: this.endpoint, client, upstream, silent: false };
    this.links.add(link);
    client.on("data", (chunk) => link.silent || upstream.write(chunk));
    upstream.on("data", (chunk) => link.silent || client.write(chunk));
    const close = () => {
      if (link.silent) return;
      client.destroy();
      upstream.destroy();
      this.links.delete(link);
    };
    for (const socket of [client, upstream]) socket.on("error", close).on("close", close);
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as AddressInfo).port;
  }

  route(endpoint: number): void {
    this.endpoint = endpoint;
  }

  /** A killed process on a live address: the kernel closes its connections. */
  cut(endpoint: number): void {
    for (const link of this.links) if (link.endpoint === endpoint) link.client.destroy();
  }

  /** A killed pod's address: its connections neither answer nor close (packets to it are dropped). */
  silence(endpoint: number): void {
    for (const link of this.links) if (link.endpoint === endpoint) link.silent = true;
  }

  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe("a client whose server was down a while", () => {
  it("serves again within seconds of the server's return, not after grpc-js's default backoff of up to 2 minutes", async () => {
    let server = await serve(0);
    const port = server.port;
    const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${port}`, {
      defaultDeadlineMs: 2_000,
    });
    const list = () => callUnary(client, client.listEvents, events.ListEventsRequest.create({}));
    try {
      await expect(list()).resolves.toMatchObject({ nextCursor: "served" });
      await server.shutdown(500);
      // 30 s of outage with traffic: grpc-js's default backoff (1 s × 1.6ⁿ) would next try about 13 s after the
      // server returns; a capped backoff tries again within its cap.
      for (const until = Date.now() + 30_000; Date.now() < until;) {
        await list().catch(() => undefined);
        await sleep(250);
      }
      server = await serve(port);
      const returnedAt = Date.now();
      await waitUntil("a call served after the server's return", list, { timeoutMs: 20_000, intervalMs: 100 });
      const servedAfterMs = Date.now() - returnedAt;
      // The cap is 2 s; 6 s leaves room for a loaded machine and still fails the default's ~13 s.
      expect(servedAfterMs).toBeLessThan(6_000);
    } finally {
      client.close();
      await server.shutdown(500);
    }
  }, 90_000);
});

describe("a client behind a Service address whose pod is replaced", () => {
  let address: ClusterAddress;
  const servers: RunningGrpcServer[] = [];
  beforeEach(() => {
    address = new ClusterAddress();
  });
  afterEach(async () => {
    await address.close();
    for (const server of servers.splice(0)) await server.shutdown(500);
  });

  async function clientOf(): Promise<{ list: () => Promise<string>; close: () => void }> {
    const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${await address.listen()}`, {
      defaultDeadlineMs: 5_000,
      retryUnavailable: true,
    });
    const list = async () =>
      (await callUnary(client, client.listEvents, events.ListEventsRequest.create({}))).nextCursor;
    return { list, close: () => client.close() };
  }

  it("rolling update (successor ready, then the old server drains): no call fails, the successor serves", async () => {
    const old = await serve(0, "old", 20);
    const successor = await serve(0, "successor", 20);
    servers.push(old, successor);
    address.route(old.port);
    const { list, close } = await clientOf();
    const answers: string[] = [];
    const failures: string[] = [];
    let loading = true;
    const caller = async () => {
      while (loading)
        await list().then(
          (by) => answers.push(by),
          (err: Error) => failures.push(err.message),
        );
    };
    try {
      const load = Promise.all(Array.from({ length: 4 }, caller));
      await sleep(500);
      // The successor is ready: the Service sends new connections there; the old pod, terminating, keeps
      // serving its connections through preStop, then drains on SIGTERM.
      address.route(successor.port);
      await sleep(300);
      await old.shutdown(5_000);
      const servedByOld = answers.length;
      await sleep(1_000);
      loading = false;
      await load;
      expect(failures).toEqual([]);
      expect(answers.slice(servedByOld)).not.toContain("old");
      expect(answers.slice(servedByOld).length).toBeGreaterThan(4);
    } finally {
      loading = false;
      close();
    }
  }, 60_000);

  it("a call whose connection drops mid-flight (a killed process) is retried on the replacement", async () => {
    const killed = await serve(0, "killed", 1_000);
    const replacement = await serve(0, "replacement");
    servers.push(killed, replacement);
    address.route(killed.port);
    const { list, close } = await clientOf();
    try {
      await expect(list()).resolves.toBe("killed");
      const call = list();
      await sleep(300);
      address.route(replacement.port);
      address.cut(killed.port);
      await expect(call).resolves.toBe("replacement");
    } finally {
      close();
    }
  }, 60_000);

  it("killed pod whose connections go silent: calls move to its replacement within keepalive time + timeout", async () => {
    const killed = await serve(0, "killed");
    const replacement = await serve(0, "replacement");
    servers.push(replacement);
    address.route(killed.port);
    const { list, close } = await clientOf();
    try {
      await expect(list()).resolves.toBe("killed");
      address.silence(killed.port);
      await killed.shutdown(0);
      address.route(replacement.port);
      const killedAt = Date.now();
      let servedAfterMs: number | undefined;
      while (servedAfterMs === undefined && Date.now() - killedAt < 80_000) {
        if ((await list().catch(() => undefined)) === "replacement") servedAfterMs = Date.now() - killedAt;
      }
      // Keepalive pings every 10 s with a 5 s timeout find the dead connection in about 15 s; 30 s leaves
      // room for a loaded machine and still fails grpc-js's defaults (no keepalive: never) or 30 s + 20 s.
      expect(servedAfterMs).toBeDefined();
      expect(servedAfterMs).toBeLessThan(30_000);
    } finally {
      close();
    }
  }, 120_000);
});
