import { makeGenericClientConstructor, type ChannelCredentials, type Client, type ClientOptions } from "@grpc/grpc-js";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { common, type catalogue, type events, type history } from "@odds/proto";

/** `items` is field 1, length-delimited. */
const ITEMS_FIELD = 1;

/**
 * Serialises a JsonPage in one copy. Its items are Buffers rendered before the call (kept
 * renderings, market views, tick pages), often megabytes in all: the generated encoder copies them
 * into a writer that doubles as it grows, then copies its bytes out twice more (`finish()`,
 * `Buffer.from`). Here each item's field header is written by the protobuf writer and the items are
 * copied once, into a Buffer of the exact size; the other fields are the generated encoder's own
 * bytes. The same message on the wire as `common.JsonPage.encode`, byte for byte.
 */
export function encodeJsonPage(page: common.JsonPage): Buffer {
  const headers = new BinaryWriter();
  const itemHeaders = page.items.map((item) =>
    headers.tag(ITEMS_FIELD, WireType.LengthDelimited).uint32(item.length).finish(),
  );
  const rest = common.JsonPage.encode({ ...page, items: [] }).finish();
  let size = rest.length;
  page.items.forEach((item, index) => (size += itemHeaders[index]!.length + item.length));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  page.items.forEach((item, index) => {
    out.set(itemHeaders[index]!, at);
    at += itemHeaders[index]!.length;
    out.set(item, at);
    at += item.length;
  });
  out.set(rest, at);
  return out;
}

/**
 * Reads a JsonPage whose items are views of the received message, not copies of it (the generated
 * decoder copies each item: `Buffer.from(Uint8Array)`). A page is read to be enveloped or parsed
 * and then dropped, so the views keep the message alive no longer than its copies would have been.
 * Every other field is read by the generated decoder.
 */
export function decodeJsonPage(bytes: Buffer): common.JsonPage {
  const reader = new BinaryReader(bytes);
  const items: Buffer[] = [];
  const rest: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [field, wireType] = reader.tag();
    if (field === ITEMS_FIELD && wireType === WireType.LengthDelimited) {
      const item = reader.bytes();
      items.push(Buffer.from(item.buffer, item.byteOffset, item.byteLength));
    } else {
      reader.skip(wireType, field);
      rest.push(bytes.subarray(start, reader.pos));
    }
  }
  const page = common.JsonPage.decode(Buffer.concat(rest));
  page.items = items;
  return page;
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
 * `encodeJsonPage` and `decodeJsonPage`: what a server registers and what a client is built from.
 */
export function withJsonPageWire<Definition extends object>(
  definition: Definition,
  methods: readonly JsonPageMethod<Definition>[],
): Definition {
  const wired: Record<PropertyKey, unknown> = { ...(definition as Record<PropertyKey, unknown>) };
  for (const name of methods) {
    wired[name] = {
      ...(definition[name] as object),
      responseSerialize: encodeJsonPage,
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
