import { credentials } from "@grpc/grpc-js";
import { common, events, history } from "@odds/proto";
import pino from "pino";
import {
  callUnary,
  clientWithJsonPageWire,
  createGrpcClient,
  decodeJsonPage,
  encodeJsonPage,
  frameItems,
  JSON_PAGE_METHODS,
  serializeJsonPage,
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
  it("writes the generated encoder's bytes, byte for byte, with room to frame a large page in", () => {
    for (const page of PAGES) {
      const large = page.items.reduce((sum, item) => sum + item.length, 0) >= 64 * 1024;
      const expected = common.JsonPage.encode({ ...page, frameRoom: large ? Buffer.alloc(1024) : undefined }).finish();
      expect(encodeJsonPage(page).equals(Buffer.from(expected))).toBe(true);
    }
  });
});

describe("serializeJsonPage", () => {
  it("writes encodeJsonPage's bytes into one Buffer it reuses, and a page over 8 MiB into one of its own", () => {
    for (const page of PAGES) expect(serializeJsonPage(page).equals(encodeJsonPage(page))).toBe(true);
    const first = serializeJsonPage(PAGES[1]!);
    const second = serializeJsonPage(PAGES[2]!);
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
    const huge = common.JsonPage.create({ items: [Buffer.alloc(8 * 1024 * 1024, "h")] });
    const own = serializeJsonPage(huge);
    expect(own.buffer).not.toBe(first.buffer);
    expect(own.equals(encodeJsonPage(huge))).toBe(true);
  });
});

describe("decodeJsonPage", () => {
  it("reads what the generated decoder reads, but the room", () => {
    for (const page of PAGES) {
      for (const bytes of [Buffer.from(common.JsonPage.encode(page).finish()), encodeJsonPage(page)]) {
        const expected = common.JsonPage.decode(Buffer.from(bytes));
        expect(decodeJsonPage(bytes)).toEqual({ ...expected, frameRoom: undefined });
      }
    }
  });

  it("gives the items as views of the message, not copies", () => {
    for (const page of [PAGES[1]!, PAGES[2]!]) {
      const bytes = encodeJsonPage(page);
      const decoded = decodeJsonPage(bytes);
      expect(decoded.items.map((item) => item.buffer)).toEqual(decoded.items.map(() => bytes.buffer));
      bytes[decoded.items[0]!.byteOffset - bytes.byteOffset] = 0x5b;
      expect(decoded.items[0]!.toString()).toBe("[}");
    }
  });

  it("refuses a message cut inside an item, as the generated decoder does", () => {
    const whole = encodeJsonPage(common.JsonPage.create({ items: [Buffer.from("{}"), Buffer.alloc(300, "x")] }));
    const cut = whole.subarray(0, whole.length - 10);
    expect(() => common.JsonPage.decode(cut)).toThrow(RangeError);
    expect(() => decodeJsonPage(Buffer.from(cut))).toThrow(RangeError);
  });

  it("skips fields it does not know, as the generated decoder does", () => {
    const unknown = Buffer.from([(9 << 3) | 2, 3, 1, 2, 3, (10 << 3) | 0, 150, 1]);
    const bytes = Buffer.concat([encodeJsonPage(PAGES[1]!), unknown]);
    const page = decodeJsonPage(bytes);
    expect(page.items.map(String)).toEqual(PAGES[1]!.items.map(String));
    expect([page.nextCursor, page.notice, page.objects]).toEqual(["eyJ2IjoxfQ", "partial", 300]);
  });
});

/** A deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Items of every length header size (one to three bytes, the lengths either side of each step). */
function itemsOf(next: () => number, count: number): Buffer[] {
  const lengths = [0, 1, 127, 128, 129, 16_383, 16_384, 16_385, 40_000];
  return Array.from({ length: count }, (_, index) => {
    const length = next() < 0.5 ? lengths[Math.floor(next() * lengths.length)]! : Math.floor(next() * 3_000);
    return Buffer.alloc(length, String.fromCharCode(97 + (index % 26)));
  });
}

const HEAD = Buffer.from('{"success":true,"data":[');

/** The envelope as a copy makes it: what `frameItems` must give in every case. */
function copied(items: readonly Uint8Array[], head: Uint8Array, tail: Uint8Array): Buffer {
  const parts: Uint8Array[] = [head];
  items.forEach((item, index) => parts.push(...(index > 0 ? [Buffer.from(","), item] : [item])));
  return Buffer.concat([...parts, tail]);
}

/** `framed` lies within the message `bytes` (small Buffers share Node's pool, so the same ArrayBuffer says nothing). */
function inMessage(framed: Buffer, bytes: Buffer): boolean {
  return (
    framed.buffer === bytes.buffer &&
    framed.byteOffset >= bytes.byteOffset &&
    framed.byteOffset + framed.length <= bytes.byteOffset + bytes.length
  );
}

describe("frameItems", () => {
  it("frames a received page's items as a copy would, in its message where the page is large", () => {
    const next = random(16);
    for (let round = 0; round < 200; round++) {
      const items = itemsOf(next, 1 + Math.floor(next() * 40));
      const page = common.JsonPage.create({ items, nextCursor: next() < 0.5 ? "c".repeat(300) : "", tag: "t" });
      // Our encoder puts the other fields after the items; these put them before and between them too.
      const encodings = [
        encodeJsonPage(page),
        Buffer.concat([
          common.JsonPage.encode({ ...page, items: [] }).finish(),
          ...items.map((item, index) =>
            Buffer.concat([
              common.JsonPage.encode(common.JsonPage.create({ items: [item] })).finish(),
              ...(index % 3 === 1 ? [common.JsonPage.encode({ ...page, items: [] }).finish()] : []),
            ]),
          ),
        ]),
      ];
      for (const [index, bytes] of encodings.entries()) {
        // Only our encoder leaves room; without it a page fits if its own fields left enough.
        const framedInPlace = index === 0 ? bytes.length >= 64 * 1024 : undefined;
        const decoded = decodeJsonPage(bytes);
        expect(decoded.items.map((item) => Buffer.compare(item, items[decoded.items.indexOf(item)]!))).toEqual(
          items.map(() => 0),
        );
        expect([decoded.nextCursor, decoded.tag]).toEqual([page.nextCursor, "t"]);
        const tail = Buffer.from(`],"nextCursor":${JSON.stringify(decoded.nextCursor)}}`);
        const framed = frameItems(decoded.items, HEAD, tail);
        expect(framed.equals(copied(items, HEAD, tail))).toBe(true);
        if (framedInPlace !== undefined) expect(inMessage(framed, bytes)).toBe(framedInPlace);
        // The items are where they were, framed or not.
        expect(decoded.items.every((item, index) => item.equals(items[index]!))).toBe(true);
      }
    }
  });

  it("copies a page framed a second time, and leaves the first frame as it was", () => {
    const items = itemsOf(random(7), 30);
    const bytes = encodeJsonPage(common.JsonPage.create({ items, nextCursor: "x".repeat(100) }));
    const decoded = decodeJsonPage(bytes);
    const first = frameItems(decoded.items, HEAD, Buffer.from(`],"nextCursor":"${"x".repeat(100)}"}`));
    const firstBytes = Buffer.from(first);
    const second = frameItems(decoded.items, HEAD, Buffer.from('],"nextCursor":"other"}'));
    expect(inMessage(first, bytes)).toBe(true);
    expect(inMessage(second, bytes)).toBe(false);
    expect(first.equals(firstBytes)).toBe(true);
    expect(second.equals(copied(items, HEAD, Buffer.from('],"nextCursor":"other"}')))).toBe(true);
  });

  it("copies a selection or a reordering of a page's items, and a frame larger than the room", () => {
    const items = itemsOf(random(9), 30).map((item) => Buffer.concat([item, Buffer.alloc(3_000, "z")]));
    const tail = Buffer.from("]}");
    const variants: Array<(decoded: Buffer[]) => { items: Buffer[]; head: Buffer; tail: Buffer }> = [
      (decoded) => ({ items: decoded.slice(1), head: HEAD, tail }),
      (decoded) => ({ items: decoded.slice(0, -1), head: HEAD, tail }),
      (decoded) => ({ items: [...decoded].reverse(), head: HEAD, tail }),
      (decoded) => ({ items: decoded.map((item, index) => (index === 5 ? decoded[6]! : item)), head: HEAD, tail }),
      (decoded) => ({
        items: decoded.map((item, index) => (index === 5 ? Buffer.alloc(item.length, "q") : item)),
        head: HEAD,
        tail,
      }),
      (decoded) => ({ items: decoded, head: Buffer.alloc(33, "{"), tail }),
      (decoded) => ({ items: decoded, head: HEAD, tail: Buffer.alloc(2_000, "}") }),
    ];
    for (const variant of variants) {
      const bytes = encodeJsonPage(common.JsonPage.create({ items }));
      const decoded = decodeJsonPage(bytes);
      const framing = variant(decoded.items);
      const framed = frameItems(framing.items, framing.head, framing.tail);
      expect(inMessage(framed, bytes)).toBe(false);
      expect(framed.equals(copied(framing.items, framing.head, framing.tail))).toBe(true);
      expect(decoded.items.every((item, index) => item.equals(items[index]!))).toBe(true);
    }
  });

  it("copies the items of a small page, and frames an empty page", () => {
    const bytes = encodeJsonPage(common.JsonPage.create({ items: [Buffer.from("{}"), Buffer.from("[]")] }));
    const framed = frameItems(decodeJsonPage(bytes).items, HEAD, Buffer.from("]}"));
    expect(inMessage(framed, bytes)).toBe(false);
    expect(framed.toString()).toBe('{"success":true,"data":[{},[]]}');
    expect(frameItems([], HEAD, Buffer.from("]}")).toString()).toBe('{"success":true,"data":[]}');
  });
});

describe("withJsonPageWire over gRPC", () => {
  const big = Buffer.alloc(5 * 1024 * 1024, "z");
  /** Pages of 2 MB of one letter each, answered back to back: each serialised over the one before. */
  const LETTERS = "abcdefgh";
  const letterPage = (letter: string) => Buffer.alloc(2 * 1024 * 1024, letter);
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
              request.eventId.startsWith("letter-")
                ? common.JsonPage.create({ items: [letterPage(request.eventId.slice("letter-".length))] })
                : common.JsonPage.create({ items: [Buffer.from(`"${request.eventId}"`), big], nextCursor: "next" }),
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

  it("sends every page as it was serialised, though the next page is serialised over it before it is sent", async () => {
    // A client that reads late: HTTP/2's default 64 KB window, so each 2 MB page leaves the server in 64 KB steps,
    // one round trip each, while the server answers the other calls. A serialised message that grpc-js kept and
    // sent from later would by then hold another call's letter.
    const Client = clientWithJsonPageWire(history.HistoryServiceClient, JSON_PAGE_METHODS.history);
    const slow = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure(), {
      "grpc-node.flow_control_window": 65_535,
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
    });
    try {
      const pages = await Promise.all(
        [...LETTERS].map((letter) =>
          callUnary(slow, slow.listTicks, history.ListTicksRequest.create({ eventId: `letter-${letter}` })),
        ),
      );
      pages.forEach((page, at) => {
        expect(page.items).toHaveLength(1);
        expect(page.items[0]!.equals(letterPage(LETTERS[at]!))).toBe(true);
      });
    } finally {
      slow.close();
    }
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
