import { events } from "@odds/proto";
import pino from "pino";
import { callUnary, createGrpcClient, startGrpcServer, unaryHandler, type RunningGrpcServer } from "@odds/platform";

const logger = pino({ level: "silent" });

function serve(port: number): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port,
    logger,
    services: [
      {
        name: "odds.events.v1.EventsService",
        definition: events.EventsServiceService,
        implementation: {
          listEvents: unaryHandler(logger, async () => ({ items: [], nextCursor: "served", notice: "" })),
          applyCycle: unaryHandler(logger, async () => ({ upserted: 0, unchanged: 0 })),
          getFeedStatus: unaryHandler(logger, async () => ({ lastCycleAtMs: 0, eventCount: 0 })),
        },
      },
    ],
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a client whose server was down a while", () => {
  it("serves again within seconds of the server's return, not after grpc-js's default backoff of up to 2 minutes", async () => {
    let server = await serve(0);
    const port = server.port;
    const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${port}`, {
      serviceName: "odds.events.v1.EventsService",
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
      let servedAfterMs: number | undefined;
      while (servedAfterMs === undefined && Date.now() - returnedAt < 20_000) {
        const page = await list().catch(() => undefined);
        if (page) servedAfterMs = Date.now() - returnedAt;
        else await sleep(100);
      }
      expect(servedAfterMs).toBeDefined();
      // The cap is 2 s; 6 s leaves room for a loaded machine and still fails the default's ~13 s.
      expect(servedAfterMs).toBeLessThan(6_000);
    } finally {
      client.close();
      await server.shutdown(500);
    }
  }, 90_000);
});
