import { common, events, history } from "@odds/proto";
import pino from "pino";
import {
  callUnary,
  clientWithJsonPageWire,
  createGrpcClient,
  decodeJsonPage,
  encodeJsonPage,
  JSON_PAGE_METHODS,
  startGrpcServer,
  unaryHandler,
  withJsonPageWire,
  type RunningGrpcServer,
} from "@odds/platform";

const logger = pino({ level: "silent" });

/** Pages with every field present and absent, items of one- to three-byte length headers. */
const PAGES: common.JsonPage[] = [
  common.JsonPage.create(),
  common.JsonPage.create({
    items: [Buffer.from("{}"), Buffer.alloc(300_000, "x"), Buffer.from('{"eventID":"é"}'), Buffer.alloc(0)],
    nextCursor: "eyJ2IjoxfQ",
    notice: "partial",
    objects: 300,
  }),
  common.JsonPage.create({ items: [Buffer.from("{}")], tag: "t-1" }),
  common.JsonPage.create({ nextCursor: "c", tag: "t-1", unchanged: true }),
  // Set to their defaults: the generated encoder still writes an optional field that is present.
  common.JsonPage.create({ items: [Buffer.alloc(200, "y")], objects: 0, unchanged: false, tag: "" }),
];

describe("encodeJsonPage", () => {
  it("writes the generated encoder's bytes, byte for byte", () => {
    for (const page of PAGES) {
      expect(encodeJsonPage(page).equals(Buffer.from(common.JsonPage.encode(page).finish()))).toBe(true);
    }
  });
});

describe("decodeJsonPage", () => {
  it("reads what the generated decoder reads", () => {
    for (const page of PAGES) {
      const bytes = Buffer.from(common.JsonPage.encode(page).finish());
      expect(decodeJsonPage(bytes)).toEqual(common.JsonPage.decode(bytes));
    }
  });

  it("gives the items as views of the message, not copies", () => {
    const bytes = encodeJsonPage(PAGES[1]!);
    const page = decodeJsonPage(bytes);
    expect(page.items.map((item) => item.buffer)).toEqual(page.items.map(() => bytes.buffer));
    bytes[2] = 0x5b;
    expect(page.items[0]!.toString()).toBe("[}");
  });

  it("skips fields it does not know, as the generated decoder does", () => {
    const unknown = Buffer.from([(9 << 3) | 2, 3, 1, 2, 3, (10 << 3) | 0, 150, 1]);
    const bytes = Buffer.concat([encodeJsonPage(PAGES[1]!), unknown]);
    const page = decodeJsonPage(bytes);
    expect(page.items.map(String)).toEqual(PAGES[1]!.items.map(String));
    expect([page.nextCursor, page.notice, page.objects]).toEqual(["eyJ2IjoxfQ", "partial", 300]);
  });
});

describe("withJsonPageWire over gRPC", () => {
  const big = Buffer.alloc(5 * 1024 * 1024, "z");
  let server: RunningGrpcServer;
  let client: history.HistoryServiceClient;

  beforeAll(async () => {
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      services: [
        {
          name: "odds.history.v1.HistoryService",
          definition: withJsonPageWire(history.HistoryServiceService, JSON_PAGE_METHODS.history),
          implementation: {
            listTicks: unaryHandler(logger, async (request: history.ListTicksRequest) =>
              common.JsonPage.create({ items: [Buffer.from(`"${request.eventId}"`), big], nextCursor: "next" }),
            ),
            listHistoryFiles: unaryHandler(logger, async () => common.JsonPage.create({ notice: "none" })),
          },
        },
      ],
    });
    const Client = clientWithJsonPageWire(history.HistoryServiceClient, JSON_PAGE_METHODS.history);
    client = createGrpcClient(Client, `127.0.0.1:${server.port}`, { defaultDeadlineMs: 10_000 });
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1_000);
  });

  it("carries a multi-megabyte page whole, items in order, and the other methods as before", async () => {
    const page = await callUnary(client, client.listTicks, history.ListTicksRequest.create({ eventId: "ev-1" }));
    expect(page.items).toHaveLength(2);
    expect(page.items[0]!.toString()).toBe('"ev-1"');
    expect(page.items[1]!.equals(big)).toBe(true);
    expect(page.nextCursor).toBe("next");
    const files = await callUnary(client, client.listHistoryFiles, history.ListHistoryFilesRequest.create());
    expect(files).toEqual(common.JsonPage.create({ notice: "none" }));
  });

  it("leaves a definition's other methods and the generated client as they were", () => {
    const wired = withJsonPageWire(events.EventsServiceService, ["listEvents"]);
    expect(wired.applyCycle).toBe(events.EventsServiceService.applyCycle);
    expect(wired.listEventsV1).toBe(events.EventsServiceService.listEventsV1);
    expect(wired.listEvents.responseDeserialize).toBe(decodeJsonPage);
    expect(events.EventsServiceService.listEvents.responseDeserialize).not.toBe(decodeJsonPage);
    expect(clientWithJsonPageWire(events.EventsServiceClient, ["listEvents"]).serviceName).toBe(
      events.EventsServiceClient.serviceName,
    );
  });
});
