import { type status } from "@grpc/grpc-js";
import { testMongoUri } from "@odds/local";
import {
  callUnary,
  connectMongo,
  createGrpcClient,
  createLogger,
  type MongoStore,
  type RunningGrpcServer,
  startGrpcServer,
} from "@odds/platform";
import { common, events } from "@odds/proto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EventPreparer } from "../src/event-preparer";
import { ReadModelSync } from "../src/read-model-sync";
import { EventReadModel } from "../src/read-model";
import { eventsRpc, eventsServiceDefinition } from "../src/rpc";
import { EventStore } from "../src/store";

/** An events service in-process on port 0 over a real FerretDB database, with a real gRPC client. */
export interface EventsHarness {
  uri: string;
  mongo: MongoStore;
  feed: ReadModelSync;
  model: EventReadModel;
  client: events.EventsServiceClient;
  server: RunningGrpcServer;
  // Parsed contract JSON: tests navigate it freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  list(request: Partial<events.ListEventsRequest>): Promise<{ items: any[]; nextCursor: string }>;
  listIDs(request: Partial<events.ListEventsRequest>): Promise<string[]>;
  /** One ApplyCycle: whole events, and events carried unchanged as their observation times alone. */
  apply(cycleId: string, batch: events.Event[], restamped?: events.EventStamps[]): Promise<events.ApplyCycleResponse>;
  stop(): Promise<void>;
}

export const logger = createLogger("events-test", "silent");

export const INTERNAL: common.Caller = common.Caller.create({
  keyId: "internal",
  tier: "internal",
  allSports: true,
  allLeagues: true,
  allBookmakers: true,
  fairOdds: true,
});

/**
 * An apply's preparer on its worker as built: a worker thread runs JavaScript, not these sources
 * (`npm test` builds before it runs the tests).
 */
export function builtEventPreparer(): EventPreparer {
  const worker = join(__dirname, "../dist/prepare-worker.js");
  if (!existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
  return new EventPreparer(worker);
}

export async function startEventsService(uri = testMongoUri("events")): Promise<EventsHarness> {
  const mongo = await connectMongo(uri, { appName: "events-test", logger });
  const model = new EventReadModel();
  const preparer = builtEventPreparer();
  const feed = new ReadModelSync(new EventStore(mongo.db), model, logger, preparer);
  await feed.load();
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "odds.events.v1.EventsService",
        definition: eventsServiceDefinition,
        implementation: eventsRpc(logger, model, feed),
      },
    ],
    logger,
  });
  const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${server.port}`, {
    defaultDeadlineMs: 10_000,
  });
  const list = async (request: Partial<events.ListEventsRequest>) => {
    const page = await callUnary(
      client,
      client.listEvents,
      events.ListEventsRequest.create({ caller: INTERNAL, ...request }),
    );
    return {
      items: page.items.map((item) => JSON.parse(Buffer.from(item).toString("utf8"))),
      nextCursor: page.nextCursor,
    };
  };
  return {
    uri,
    mongo,
    feed,
    model,
    client,
    server,
    list,
    listIDs: async (request) => (await list(request)).items.map((event) => event.eventID as string),
    apply: (cycleId, batch, restamped = []) =>
      callUnary(client, client.applyCycle, { cycleId, observedAtMs: Date.now(), events: batch, restamped }),
    async stop() {
      client.close();
      feed.endWatches();
      await server.shutdown(1_000);
      await feed.stop();
      await preparer.close();
      await mongo.close();
    },
  };
}

/** The gRPC status and details of a rejected call. */
export async function rejection(promise: Promise<unknown>): Promise<{ code: status; details: string }> {
  try {
    await promise;
  } catch (err) {
    const { code, details } = err as { code: status; details: string };
    return { code, details };
  }
  throw new Error("expected the call to fail");
}
