import { makeGenericClientConstructor, type ChannelCredentials, type Client, type ClientOptions } from "@grpc/grpc-js";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { common, type catalogue, type events, type history } from "@odds/proto";

/** `items` is field 1, length-delimited. */
const ITEMS_FIELD = 1;

/** The key every item starts with on the wire: its field number and wire type, one byte. */
const ITEM_KEY = (ITEMS_FIELD << 3) | WireType.LengthDelimited;

/** `frame_room`, field 8: see FRAME_ROOM. */
const FRAME_ROOM_FIELD = 8;

/** A page at least this large carries room to be framed where it arrives, and is joined there. */
const JOINED_MIN_BYTES = 64 * 1024;

/**
 * The room a large page carries (`frame_room`) for its receiver's envelope, beyond the bytes of the
 * page's own other fields (free once decoded too): enough for the edge's closings as requests make
 * them (a sealed cursor, a notice, v1's links); a longer one, from a very long query, is copied as
 * before. Under 2 % of the smallest such page.
 */
const FRAME_ROOM = Buffer.alloc(1024);

/** Room kept before the joined items for what opens an envelope (`{"success":true,"data":[` is 24 bytes). */
const HEAD_ROOM_BYTES = 32;

/**
 * Serialises a JsonPage in one copy. Its items are Buffers rendered before the call (kept
 * renderings, market views, tick pages), often megabytes in all: the generated encoder copies them
 * into a writer that doubles as it grows, then copies its bytes out twice more (`finish()`,
 * `Buffer.from`). Here each item's key and length are written in place and the items are copied
 * once, into a Buffer of the exact size (`allocate`'s, a fresh one by default); the other fields are
 * the generated encoder's own bytes, with `frame_room` added to a large page. The same message on the
 * wire as `common.JsonPage.encode` of that page, byte for byte. (A page of 5,000 ticks: a protobuf
 * writer's header per item, each its own array, cost 0.6-1.0 ms to encode; written in place,
 * 0.25-0.35.)
 */
export function encodeJsonPage(
  page: common.JsonPage,
  allocate: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): Buffer {
  let size = 0;
  for (const item of page.items) size += 1 + varintLength(item.length) + item.length;
  // Through `create`: handlers answer pages without the fields they leave at their defaults (item_tags among them),
  // which the generated encoder cannot read.
  const rest = common.JsonPage.encode(
    common.JsonPage.create({
      ...page,
      items: [],
      frameRoom: size >= JOINED_MIN_BYTES ? FRAME_ROOM : page.frameRoom,
    }),
  ).finish();
  const out = allocate(size + rest.length);
  let at = 0;
  for (const item of page.items) {
    out[at++] = ITEM_KEY;
    at = writeVarint(out, at, item.length);
    out.set(item, at);
    at += item.length;
  }
  out.set(rest, at);
  return out;
}

/**
 * The largest message a server serialises into its kept Buffer (`serializeJsonPage`); a larger one is serialised
 * into a fresh Buffer of its own. Above the largest page the benchmark's cases answer (a cold page of 50 ids, up to
 * about 6 MB; 10,000 markets, 4.7 MB). Only what the largest page written touched of it is resident.
 */
const KEPT_MESSAGE_BYTES = 8 * 1024 * 1024;

let keptMessage: Buffer | undefined;

/**
 * A page serialised as a server sends it: `encodeJsonPage` into one Buffer kept for it and written over by the next.
 * grpc-js copies the message a serialiser returns into its own framed Buffer before anything else runs and keeps
 * nothing of it (`serializeMessage`), so a fresh Buffer of the page's size was made, written once and dropped per
 * answer: for a large page its own mapping, every 4 KiB of it faulted in and unmapped again. The kept Buffer is
 * resident. Paired on cold pages, 50 ids cost the events service about a sixth less CPU and 10,000 markets the
 * catalogue about a third less, half their page faults gone (docs/performance.md "Pages serialised into one kept
 * Buffer"). If grpc-js ever sent from the serialised message itself, a page would be written over by the next before
 * it left: json-page-wire.test.ts answers calls back to back to a client that reads late and compares every byte.
 */
export function serializeJsonPage(page: common.JsonPage): Buffer {
  return encodeJsonPage(page, (size) => {
    if (size > KEPT_MESSAGE_BYTES) return Buffer.allocUnsafe(size);
    keptMessage ??= Buffer.allocUnsafeSlow(KEPT_MESSAGE_BYTES);
    return keptMessage.subarray(0, size);
  });
}

/** Bytes of `value` (a length, under 2^32) as a protobuf varint: seven bits a byte. */
function varintLength(value: number): number {
  let bytes = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) bytes += 1;
  return bytes;
}

/** Writes `value` (a length, under 2^32) at `at` as a protobuf varint, low seven bits first; returns where it ends. */
function writeVarint(out: Buffer, at: number, value: number): number {
  let rest = value >>> 0;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at++] = rest;
  return at;
}

const COMMA = 0x2c;

/**
 * Items of one received page laid out as the inside of their JSON array, in the message that
 * carried them: `start` and `end` bound the joined items, `roomStart` and `roomEnd` the bytes the
 * message held, all offsets into the items' ArrayBuffer. Everything in the room outside the items
 * is free: the message's other fields were decoded before the items moved.
 */
interface JoinedItems {
  count: number;
  start: number;
  end: number;
  roomStart: number;
  roomEnd: number;
}

/** Keyed by a page's first item, so a page framed once claims its room (see `frameItems`). */
const joinedPages = new WeakMap<Uint8Array, JoinedItems>();

/**
 * Reads a JsonPage whose items are views of the received message, not copies of it (the generated
 * decoder copies each item: `Buffer.from(Uint8Array)`). A page is read to be enveloped or parsed
 * and then dropped, so the views keep the message alive no longer than its copies would have been.
 * In a large message the items are also moved, in place, next to one another with a comma between
 * each, so `frameItems` can frame them without copying them: the message is the decoder's own
 * (grpc-js hands each received message to one deserialiser and keeps nothing of it). Every other
 * field but `frame_room` is read by the generated decoder.
 */
export function decodeJsonPage(bytes: Buffer): common.JsonPage {
  const reader = new BinaryReader(bytes);
  const starts: number[] = [];
  const lengths: number[] = [];
  const rest: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [field, wireType] = reader.tag();
    if (field === ITEMS_FIELD && wireType === WireType.LengthDelimited) {
      // Its bounds only: `reader.bytes()` would make a view per item, thousands in a page of ticks.
      const length = reader.uint32();
      starts.push(reader.pos);
      lengths.push(length);
      reader.pos += length;
      if (reader.pos > reader.len) throw new RangeError("premature EOF");
    } else if (field === FRAME_ROOM_FIELD) {
      reader.skip(wireType, field);
    } else {
      reader.skip(wireType, field);
      rest.push(bytes.subarray(start, reader.pos));
    }
  }
  const page = common.JsonPage.decode(Buffer.concat(rest));
  page.items =
    bytes.length >= JOINED_MIN_BYTES && starts.length > 0
      ? joinInPlace(bytes, starts, lengths)
      : starts.map((start, index) => bytes.subarray(start, start + lengths[index]!));
  return page;
}

/**
 * Moves the items of `bytes` (at `starts`, ascending) so that they follow one another from
 * HEAD_ROOM_BYTES on, a comma between each, and returns them as views there. Between two items
 * the message held at least their field header (two bytes or more) and each item moves one byte
 * closer to the previous, so the distance an item moves falls from each item to the next: moving
 * those that go right last first, then those that go left first first, no item is overwritten
 * before it has moved.
 */
function joinInPlace(bytes: Buffer, starts: number[], lengths: number[]): Buffer[] {
  const count = starts.length;
  const joinedLength = lengths.reduce((sum, length) => sum + length, count - 1);
  const at = Math.min(HEAD_ROOM_BYTES, bytes.length - joinedLength);
  const targets = new Array<number>(count);
  let next = at;
  for (let index = 0; index < count; index++) {
    targets[index] = next;
    next += lengths[index]! + 1;
  }
  // `copyWithin`, one native move an item: Buffer's `copy` makes a view of its source on each call, which took a
  // page of 10,000 items twice as long.
  const move = (index: number) => bytes.copyWithin(targets[index]!, starts[index]!, starts[index]! + lengths[index]!);
  for (let index = count - 1; index >= 0; index--) if (targets[index]! > starts[index]!) move(index);
  for (let index = 0; index < count; index++) if (targets[index]! < starts[index]!) move(index);
  const items = new Array<Buffer>(count);
  for (let index = 0; index < count; index++) {
    const end = targets[index]! + lengths[index]!;
    items[index] = bytes.subarray(targets[index]!, end);
    if (index < count - 1) bytes[end] = COMMA;
  }
  joinedPages.set(items[0]!, {
    count: items.length,
    start: bytes.byteOffset + at,
    end: bytes.byteOffset + at + joinedLength,
    roomStart: bytes.byteOffset,
    roomEnd: bytes.byteOffset + bytes.length,
  });
  return items;
}

/**
 * The bytes of `head`, the items joined by commas, then `tail`: a JSON array's items (or an
 * object's members) between what opens and closes them, an envelope for a page. Items of a large received page (`decodeJsonPage`) are framed
 * where they lie: `head` and `tail` are written into their message's free room and the answer is a
 * view of it, so the page is not copied (for a page of megabytes, the copy and its fresh memory
 * cost more than everything else the edge does with it but hashing and sending it). That room is
 * claimed once; other items, a page framed again, or a frame too large for the room, are copied
 * into one Buffer.
 */
export function frameItems(items: readonly Uint8Array[], head: Uint8Array, tail: Uint8Array): Buffer {
  const first = items[0];
  const joined = first && joinedPages.get(first);
  if (
    first &&
    joined &&
    head.length <= joined.start - joined.roomStart &&
    tail.length <= joined.roomEnd - joined.end &&
    isJoined(items, joined)
  ) {
    joinedPages.delete(first);
    const framed = Buffer.from(
      first.buffer,
      joined.start - head.length,
      head.length + (joined.end - joined.start) + tail.length,
    );
    framed.set(head, 0);
    framed.set(tail, framed.length - tail.length);
    return framed;
  }
  return Buffer.concat(envelopeParts(items, head, tail));
}

/**
 * The envelope around `items` as the Buffers it is made of, in order: `head`, the items with a comma between each, and
 * `tail`. `frameItems` copies them into one Buffer; a caller may keep or send them as they are.
 */
export function envelopeParts<Part extends Uint8Array>(
  items: readonly Part[],
  head: Part,
  tail: Part,
): (Part | Buffer)[] {
  const parts: (Part | Buffer)[] = [head];
  items.forEach((item, index) => {
    if (index > 0) parts.push(COMMA_BYTES);
    parts.push(item);
  });
  parts.push(tail);
  return parts;
}

/** In a block of its own (`Buffer.alloc` never cuts from the shared pool), so that a part kept holds only itself. */
const COMMA_BYTES = Buffer.alloc(1, COMMA);

/** `items` are exactly the joined items (not a selection or a reordering of them). */
function isJoined(items: readonly Uint8Array[], joined: JoinedItems): boolean {
  if (items.length !== joined.count) return false;
  const buffer = items[0]!.buffer;
  let at = joined.start;
  for (const item of items) {
    if (item.buffer !== buffer || item.byteOffset !== at) return false;
    at += item.byteLength + 1;
  }
  return at - 1 === joined.end;
}

type Serialize<T> = (value: T) => Buffer;
type Deserialize<T> = (bytes: Buffer) => T;

/** The methods of a grpc-js service definition (ts-proto's) that answer a JsonPage. */
export type JsonPageMethod<Definition> = {
  [Name in keyof Definition]: Definition[Name] extends {
    responseSerialize: Serialize<common.JsonPage>;
    responseDeserialize: Deserialize<common.JsonPage>;
  }
    ? Name
    : never;
}[keyof Definition];

/**
 * A service definition whose `methods` (those answering a JsonPage) send and read their pages with
 * `serializeJsonPage` and `decodeJsonPage`: what a server registers and what a client is built from.
 */
export function withJsonPageWire<Definition extends object>(
  definition: Definition,
  methods: readonly JsonPageMethod<Definition>[],
): Definition {
  const wired: Record<PropertyKey, unknown> = { ...(definition as Record<PropertyKey, unknown>) };
  for (const name of methods) {
    wired[name] = {
      ...(definition[name] as object),
      responseSerialize: serializeJsonPage,
      responseDeserialize: decodeJsonPage,
    };
  }
  return wired as Definition;
}

/**
 * Every method of our services that answers a JsonPage, per service: the server registers its
 * definition and the edge builds its client from the same list.
 */
export const JSON_PAGE_METHODS = {
  events: ["listEvents", "listEventsV1"],
  history: ["listTicks", "listHistoryFiles"],
  catalogue: ["listSports", "listLeagues", "listTeams", "listPlayers", "listStats", "listMarkets", "listBookmakers"],
} as const satisfies {
  events: readonly JsonPageMethod<typeof events.EventsServiceService>[];
  history: readonly JsonPageMethod<typeof history.HistoryServiceService>[];
  catalogue: readonly JsonPageMethod<typeof catalogue.CatalogueServiceService>[];
};

/** A ts-proto grpc-js client class: its service's definition and name. */
type ClientClass<C extends Client, Definition> = {
  new (address: string, channelCredentials: ChannelCredentials, options?: Partial<ClientOptions>): C;
  readonly service: Definition;
  readonly serviceName: string;
};

/** The same client class, its `methods` reading their pages with `decodeJsonPage`. */
export function clientWithJsonPageWire<C extends Client, Definition extends object>(
  Ctor: ClientClass<C, Definition>,
  methods: readonly JsonPageMethod<Definition>[],
): ClientClass<C, Definition> {
  const definition = withJsonPageWire(Ctor.service, methods);
  return makeGenericClientConstructor(
    definition as Parameters<typeof makeGenericClientConstructor>[0],
    Ctor.serviceName,
  ) as unknown as ClientClass<C, Definition>;
}
