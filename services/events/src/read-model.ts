import { createHash } from "node:crypto";
import { CursorCodec, packJsonSync, unpackJson } from "@odds/platform";
import { oddId, pricing } from "@odds/proto";
import { LRUCache } from "lru-cache";
import {
  compareOrder,
  cursorBinding,
  earliestStartMs,
  type EventFacts,
  type EventQuery,
  factsOf,
  FULL_SHAPE,
  isStale,
  keepsOnlyNamedSides,
  type OddsShape,
  type PagePosition,
  pagePositionSchema,
  planAllowsEvent,
  positionOf,
  selectsEvent,
  shapeCacheKey,
  SHAPED_EVENT_MEMBERS,
  shapeEvent,
  shapeFor,
  shapeIdentity,
  type PlanScope,
} from "./query";
import { settle, type SettlementBook } from "./grading/settlement";
import { contractJson, contractJsonWithoutAltLines, type ContractEvent, type ContractOdds } from "./render";
import { PackedRendering, type RenderingSides } from "./packed-rendering";
import { MarketBook, mergeMarketBook, type MarketBookSides } from "./market-book";
import { externalIDsOf, renderV1Event, renderV1Odds, renderV1Result, v1StatusOf, type V1Rendered } from "./v1-render";
import { v1 } from "@odds/proto";
import {
  newerStamps,
  restampJson,
  stampLayoutOf,
  stampsKey,
  stampsOf,
  type ObservationStamps,
  type StampLayout,
} from "./stamps";
import { objectJsonWith, objectMembersOf, sidesOfJson } from "./odds-layout";

const FRESH_MARKER = Buffer.from('"stale":false');
const STALE_MARKER = Buffer.from('"stale":true');
const INFO_KEY = Buffer.from('"info":');
/** Plan-driven renderings kept per event per cycle (tiers x include flags); request-specific shapes are not cached. */
const MAX_CACHED_SHAPES = 12;

/**
 * The same JSON with info.stale true (info precedes odds, so the first marker after "info" is the field), made in
 * `fresh`'s own bytes, which the caller gives up. The stale marker is one byte shorter, so the bytes before it (an
 * event's head: about 560 on the benchmark's events) move one to the right, and the result starts one byte in: a
 * copy of the head, not of the hundreds of KB of a fully priced event. The markers are ASCII, which no byte of a
 * multi-byte UTF-8 character can match.
 */
function markedStale(fresh: Buffer): Buffer {
  const at = fresh.indexOf(FRESH_MARKER, fresh.indexOf(INFO_KEY));
  fresh.copyWithin(1, 0, at);
  STALE_MARKER.copy(fresh, at + 1);
  return fresh.subarray(1);
}

/**
 * Renderings are kept packed (raw-deflated, about a tenth of their size: a full-scale world of
 * ~700,000 prices is ~800 MB of JSON); the bytes served lately are kept unpacked here, bounded by
 * size, so a hot event costs no unpacking and memory stays flat whatever the world's size. A third
 * of this bound saved the service 22-28 MB for a fifth more of its CPU on cold pages of 100 events
 * (docs/performance.md "Tried and not adopted: a smaller served-bytes cache").
 */
const SERVED_BYTES_MAX = 48 * 1024 * 1024;
const servedBytes = new LRUCache<string, Buffer>({
  maxSize: SERVED_BYTES_MAX,
  sizeCalculation: (bytes) => Math.max(1, bytes.length),
});
let preparedSerial = 0;

/**
 * Parsed full renderings of recently re-shaped events. Holding every event's object tree would
 * make each garbage collection walk millions of objects; the served bytes live off-heap instead.
 * Bounded by the JSON they were parsed from (a tree takes a few times its JSON): a count alone let
 * 32 fully priced events (1-2 MB of JSON each) hold a few hundred MB.
 */
const PARSED_CACHE_MAX_JSON_BYTES = 16 * 1024 * 1024;
const parsedContracts = new LRUCache<PreparedEvent, { contract: ContractEvent; jsonBytes: number }>({
  maxSize: PARSED_CACHE_MAX_JSON_BYTES,
  sizeCalculation: (parsed) => Math.max(1, parsed.jsonBytes),
});

/**
 * What each packed rendering's first unpacking found: its JSON's length and where its stamps sit. Every later
 * unpacking, by the event or any restamped copy of it, inflates into one buffer of that length and writes its
 * stamps at those offsets, instead of joining zlib's pieces and scanning hundreds of KB again. Held as long as the
 * packed rendering is.
 */
const unpackings = new WeakMap<Buffer, { bytes: number; stamps: StampLayout }>();

/** What the v1 routes ask of an event: its Event object or its odds in one grouping. */
export type V1View = "event" | "odds" | "odds_by_bookmaker" | "results";

/** A v1 rendering as served: its JSON, its usage in objects, and until when it holds. */
export interface V1Json {
  json: Buffer;
  objects: number;
  validUntilMs: number;
}

function v1Json<T>(rendered: V1Rendered<T>): V1Json {
  return {
    json: Buffer.from(JSON.stringify(rendered.object)),
    objects: rendered.objects,
    validUntilMs: rendered.validUntilMs,
  };
}

/** What an event's preparation may be handed ready: renderings packed, stamps, market book and settlement. */
export interface PreparedParts {
  /** The full rendering's JSON, packed (packJson): as stored. */
  packed?: Buffer;
  /** The default shape's JSON (no alternate lines), packed in pieces. */
  packedDefault?: PackedRendering;
  /** The contract's stamps, when the caller has them without parsing its times. */
  stamps?: ObservationStamps;
  marketBook?: MarketBook;
  settlement?: SettlementBook;
}

/** Everything an event ready to serve is made of: what its preparation (`preparedEvent`, or an apply's) derived from its contract. */
export interface PreparedEventParts extends Required<PreparedParts> {
  contentHash: string;
  facts: EventFacts;
  /** The bookmakers' own event ids (`externalIDsOf`). */
  externalIDs: Record<string, string>;
}

const DEFAULT_SHAPE_KEY = shapeCacheKey(FULL_SHAPE) as string;

/**
 * An event's parts, deriving what `parts` lacks from its contract: a load from the store, which has
 * the full rendering packed, renders and packs the default shape here (`prepareStoredEvents`, on the
 * preparation's worker); an apply prepares every part (`prepareEvents`).
 */
export function preparedEventParts(
  contract: ContractEvent,
  contentHash: string,
  parts: PreparedParts = {},
): PreparedEventParts {
  // A document written before books (or settlements) were stored: they are made here, from the contract.
  let sides: MarketBookSides | undefined;
  const bookSides = () => (sides ??= parts.marketBook?.sides() ?? mergeMarketBook(undefined, contract));
  return {
    contentHash,
    facts: factsOf(contract),
    externalIDs: externalIDsOf(contract),
    packed: parts.packed ?? packJsonSync(contractJson(contract).full, { fast: true }),
    packedDefault: parts.packedDefault ?? PackedRendering.pack(contractJsonWithoutAltLines(contract)),
    stamps: parts.stamps ?? stampsOf(contract),
    marketBook: parts.marketBook ?? MarketBook.pack(bookSides()),
    settlement:
      parts.settlement ?? settle(undefined, contract, bookSides(), 0, Date.parse(contract.info.lastUpdatedAt)),
  };
}

/** An event ready to serve, on this thread (`preparedEventParts`): the tests' and tools' way to one. */
export function preparedEvent(contract: ContractEvent, contentHash: string, parts: PreparedParts = {}): PreparedEvent {
  return new PreparedEvent(preparedEventParts(contract, contentHash, parts));
}

/** One current event, rendered once per cycle; each distinct plan shape is rendered at most once. */
export class PreparedEvent {
  readonly facts: EventFacts;
  readonly contentHash: string;
  /** The v1 id (ev_...), derived from the eventID; the store keeps it beside the event for lookups. */
  readonly v1ID: string;
  /** The bookmakers' own event ids, written bookmakerID:id. */
  readonly externalIDs: string[];
  /** v1 player id (pl_...) -> playerID, for every player of the event: hashed once per rendering, not per cycle call. */
  readonly v1PlayerIDs: ReadonlyMap<string, string>;
  private readonly v1Renderings = new Map<string, V1Json>();
  /** When the event and each bookmaker's prices were last observed (the packed bytes may carry older ones). */
  readonly stamps: ObservationStamps;
  /** The full rendering (alternate lines and fair prices included, info.stale false), packed. */
  private readonly full: Buffer;
  /** The default shape's rendering, packed in pieces (its whole stream is also `renderings`' default entry). */
  private readonly packedDefault: PackedRendering;
  /** Packed renderings by shape key; shared by the restamped copies of the event (stamps are written in on unpacking). */
  private readonly renderings = new Map<string, Buffer>();
  /** Distinguishes this object (and so its stamps) in the served-bytes cache. */
  private readonly serial = ++preparedSerial;
  /** What its bytes are made of, for a page's tag: the event, its content and its stamps (written once). */
  private identity: string | undefined;
  /** `identity` hashed, for its item tags (made once). */
  private identityTag: string | undefined;

  /** Every side the event has been priced on, as last seen: what its result is graded on. */
  readonly marketBook: MarketBook;
  /** The verdicts as settled (documents from before settlements were stored: settled now, from their results). */
  readonly settlement: SettlementBook;

  /** From a contract, use `preparedEvent`, which derives what it lacks. */
  constructor(parts: PreparedEventParts) {
    this.contentHash = parts.contentHash;
    this.marketBook = parts.marketBook;
    this.settlement = parts.settlement;
    this.facts = parts.facts;
    this.v1ID = v1.v1Id("event", parts.facts.eventID);
    this.externalIDs = Object.entries(parts.externalIDs).map(([bookmakerID, id]) => `${bookmakerID}:${id}`);
    this.v1PlayerIDs = new Map([...this.facts.playerIDs].map((playerID) => [v1.v1Id("player", playerID), playerID]));
    this.stamps = parts.stamps;
    this.full = parts.packed;
    this.packedDefault = parts.packedDefault;
    this.renderings.set(DEFAULT_SHAPE_KEY, parts.packedDefault.packed);
  }

  get lastUpdatedAtMs(): number {
    return this.stamps.lastUpdatedAtMs;
  }

  /**
   * The same event observed later (sharing its packed renderings: the new stamps are written in
   * as they are unpacked), or itself when no stamp moved forward.
   */
  restamped(incoming: ObservationStamps): PreparedEvent {
    const stamps = newerStamps(this.stamps, incoming);
    if (!stamps) return this;
    const copy = Object.create(PreparedEvent.prototype) as PreparedEvent;
    return Object.assign(copy, this, {
      stamps,
      serial: ++preparedSerial,
      identity: undefined,
      identityTag: undefined,
      v1Renderings: new Map<string, V1Json>(),
    });
  }

  /**
   * What this event adds to the tag of a page it is on: its content and stamps, and whether it is
   * served stale as of `nowMs`, which with the page's shape decide its bytes (see `json`).
   */
  tagPart(nowMs: number): string {
    return `${this.ownIdentity()}|${isStale(this.lastUpdatedAtMs, nowMs) ? "stale" : "fresh"}`;
  }

  /**
   * Its tag as an item of a page (`EventReadModel.list`) of the shape tagged `shapeTag`: its part of a page's tag,
   * hashed, so that a caller names the items it holds in a few bytes each. Hashed once per event as served (a
   * changed or restamped event is another object), not per page; the shape's tag is the page's, made once.
   */
  itemTag(shapeTag: string, nowMs: number): string {
    this.identityTag ??= truncatedHash(this.ownIdentity(), ITEM_TAG_BYTES);
    return `${this.identityTag}${shapeTag}${isStale(this.lastUpdatedAtMs, nowMs) ? "s" : "f"}`;
  }

  private ownIdentity(): string {
    return (this.identity ??= `${this.facts.eventID}|${this.contentHash}|${stampsKey(this.stamps)}`);
  }

  /** Packed JSON unpacked, carrying this event's stamps. */
  private unpacked(packed: Buffer): Buffer {
    const known = unpackings.get(packed);
    const json = unpackJson(packed, { bytes: known?.bytes });
    const found = known ?? { bytes: json.length, stamps: stampLayoutOf(json) };
    if (!known) unpackings.set(packed, found);
    return restampJson(json, this.stamps, { inPlace: true, layout: found.stamps });
  }

  private contract(): ContractEvent {
    const cached = parsedContracts.get(this);
    if (cached) return cached.contract;
    const json = this.unpacked(this.full);
    const contract = JSON.parse(json.toString("utf8")) as ContractEvent;
    parsedContracts.set(this, { contract, jsonBytes: json.length });
    return contract;
  }

  /**
   * The event's JSON shaped for `shape` with only the sides `shapeEvent` can keep for it (see `keepsOnlyNamedSides`),
   * parsed from their bytes: a narrow read of a fully priced event parses a few KB, not its 1-2 MB. Without
   * alternate lines it reads the default rendering, whose pieces holding the named sides are the only ones inflated;
   * with them, the full rendering unpacked and laid out. Of the event's other members only those `shapeEvent` reads
   * are parsed (`SHAPED_EVENT_MEMBERS`); the rest (teams, players, status: most of a narrow answer's bytes) are
   * copied as they are. Undefined when the shape needs every side.
   */
  private namedSidesJson(shape: OddsShape): Buffer | undefined {
    if (!keepsOnlyNamedSides(shape)) return undefined;
    const rendering: RenderingSides | undefined = shape.includeAltLines
      ? sidesOfJson(unpackJson(this.full))
      : this.packedDefault;
    if (!rendering) return undefined;
    const others = restampJson(rendering.withoutOdds(), this.stamps, { inPlace: true });
    const members = objectMembersOf(others);
    if (!members) return undefined;
    const order = rendering.oddIDs();
    // Each kept side by its index in the event's order.
    const parsed = new Map<number, ContractOdds>();
    const parse = (sides: number[]) => {
      rendering.sideValues(sides).forEach((bytes, at) => {
        const restamped = restampJson(bytes, this.stamps, { inPlace: true });
        parsed.set(sides[at] as number, JSON.parse(restamped.toString("utf8")) as ContractOdds);
      });
    };
    parse(sidesWhere(order, oddId.oddIDFilter(shape.oddIDs)));
    if (shape.includeOpposingOdds) {
      const opposing = new Set<string>();
      for (const side of parsed.values()) if (side.opposingOddID) opposing.add(side.opposingOddID);
      parse(sidesWhere(order, (oddID, side) => opposing.has(oddID) && !parsed.has(side)));
    }
    const odds: Record<string, ContractOdds> = {};
    for (const side of [...parsed.keys()].sort((a, b) => a - b))
      odds[order[side] as string] = parsed.get(side) as ContractOdds;
    const read: Record<string, unknown> = {};
    for (const { key, valueStart, end } of members)
      if (SHAPED_EVENT_MEMBERS.has(key)) read[key] = JSON.parse(others.toString("utf8", valueStart, end));
    read.odds = odds;
    const shaped = shapeEvent(read as unknown as ContractEvent, shape);
    return objectJsonWith(others, members, shaped as unknown as Record<string, unknown>);
  }

  /**
   * The event's v1 rendering for this view and shape as of `nowMs`. Plan-driven shapes are kept
   * until a price in them turns stale; a market filter renders afresh.
   */
  v1(view: V1View, shape: OddsShape, marketIDs: ReadonlySet<string> | null, nowMs: number): V1Json {
    const shapeKey = marketIDs === null ? shapeCacheKey(shape) : undefined;
    const key = shapeKey === undefined ? undefined : `${view}|${shapeKey}`;
    const cached = key === undefined ? undefined : this.v1Renderings.get(key);
    if (cached && nowMs < cached.validUntilMs) return cached;
    const contract = shapeEvent(this.contract(), shape);
    const rendering =
      view === "event"
        ? v1Json(renderV1Event(contract, nowMs))
        : view === "results"
          ? v1Json(renderV1Result(contract, this.marketBook.sides(), this.settlement))
          : v1Json(renderV1Odds(contract, view === "odds" ? "market" : "bookmaker", marketIDs, nowMs));
    if (key !== undefined && (cached || this.v1Renderings.size < MAX_CACHED_SHAPES))
      this.v1Renderings.set(key, rendering);
    return rendering;
  }

  /** The event's contract JSON for this shape, with info.stale as of `nowMs`; recently served bytes cost no work. */
  json(shape: OddsShape, nowMs: number): Buffer {
    const stale = isStale(this.lastUpdatedAtMs, nowMs);
    const key = shapeCacheKey(shape);
    const servedKey = key === undefined ? undefined : `${this.serial}|${stale ? "stale" : "fresh"}|${key}`;
    const served = servedKey === undefined ? undefined : servedBytes.get(servedKey);
    if (served) return served;
    const packed = key === undefined ? undefined : this.renderings.get(key);
    let bytes: Buffer;
    if (packed) {
      bytes = this.unpacked(packed);
    } else {
      bytes = this.namedSidesJson(shape) ?? Buffer.from(JSON.stringify(shapeEvent(this.contract(), shape)));
      if (key !== undefined && this.renderings.size < MAX_CACHED_SHAPES)
        this.renderings.set(key, packJsonSync(bytes, { fast: true }));
    }
    if (stale) bytes = markedStale(bytes);
    if (servedKey !== undefined) servedBytes.set(servedKey, bytes);
    return bytes;
  }
}

export interface FeedState {
  /** Increases with every cycle that changed at least one event. */
  version: number;
  cycleId: string;
  lastCycleAtMs: number;
  /** The instant the last applied cycle observed its prices at (0 before any). */
  observedAtMs: number;
}

export interface EventPage {
  items: Buffer[];
  /** Empty on the last page. */
  nextCursor: string;
}

/** A v2 page, tagged: the same request answers the same tag while the page's bytes stay the same. */
export interface TaggedEventPage extends EventPage {
  tag: string;
  /** Each item's tag, in order (none on an unchanged page): the same request answers the same tag while that event's bytes stay the same. */
  itemTags: string[];
  /** The tag is the one the caller named: the page is the one it holds, and no items are made. */
  unchanged: boolean;
}

/** What the caller of a v2 page holds of it (from the page it renews): its tag and its items' tags. */
export interface HeldEventPage {
  tag?: string;
  itemTags?: readonly string[];
}

/** The item sent for an event the caller holds: nothing, it has the bytes (items are never empty JSON). */
const HELD_ITEM = Buffer.alloc(0);

/** Bytes of an item's tag: 128 bits of its SHA-256, collision-free for any page's items. */
const ITEM_TAG_BYTES = 16;

/**
 * Bytes of the shape's part of an item's tag (the shape and the code's release): 64 bits of its SHA-256. Under one
 * cache key of the edge's (route, query, plan scope) the shape still moves with this service's settings
 * (`FAIR_ODDS_BOOKMAKERS`) and its release, between replicas during a rollout for one, and an item held in another
 * shape or rendered by another release must be sent whole.
 */
const SHAPE_TAG_BYTES = 8;

/** The indices in `order` of the oddIDs `keep` keeps, ascending. */
function sidesWhere(order: readonly string[], keep: (oddID: string, side: number) => boolean): number[] {
  const sides: number[] = [];
  order.forEach((oddID, side) => {
    if (keep(oddID, side)) sides.push(side);
  });
  return sides;
}

/** The first `bytes` of the SHA-256 of `text`, in base64url: the parts of an item's tag. */
function truncatedHash(text: string, bytes: number): string {
  return createHash("sha256").update(text).digest().subarray(0, bytes).toString("base64url");
}

export interface V1EventPage extends EventPage {
  /** Usage of the page: 1 per item plus 1 per bookmaker price in it. */
  objects: number;
}

/** What a v1 request adds to an EventQuery: the view, a market filter and a status. */
export interface V1Request {
  view: V1View;
  /** v1 market ids (mk_...); null = every market. */
  marketIDs: ReadonlySet<string> | null;
  status?: string;
}

const cursorCodec = new CursorCodec("events", pagePositionSchema);
const v1CursorCodec = new CursorCodec("events.v1", pagePositionSchema);

/** Index of the first element for which `isAtOrAfter` holds; the predicate must be monotonic over `items`. */
function firstIndex(items: readonly PreparedEvent[], isAtOrAfter: (event: PreparedEvent) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isAtOrAfter(items[mid] as PreparedEvent)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * Every current event in memory, ordered as /events serves them. Replaced wholesale on each
 * change (copy-on-write), so a request in flight always reads one consistent snapshot.
 */
export class EventReadModel {
  /** Sharp and exchange bookmakers fair prices are re-taken from for plans that show only some bookmakers. */
  private readonly fairOddsBookmakers: readonly string[];
  /** The code's release (`serviceRelease`): named in every tag, so no page another release rendered is confirmed. */
  private readonly release: string;
  private byID = new Map<string, PreparedEvent>();
  /** ev_ id, bookmakerID:id and pl_ id -> internal id: the v1 lookups. */
  private readonly v1Index = new V1Index();
  private ordered: readonly PreparedEvent[] = [];
  private state: FeedState = { version: 0, cycleId: "", lastCycleAtMs: 0, observedAtMs: 0 };

  constructor(options: { fairOddsBookmakers?: readonly string[]; release?: string } = {}) {
    this.fairOddsBookmakers = options.fairOddsBookmakers ?? pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS;
    this.release = options.release ?? "";
  }

  get feedState(): FeedState {
    return this.state;
  }

  get size(): number {
    return this.byID.size;
  }

  /** The event as currently served. */
  prepared(eventID: string): PreparedEvent | undefined {
    return this.byID.get(eventID);
  }

  /**
   * Replaces the given events and records the feed state they belong to. Costs the events given,
   * not the world: the order is a merge and the v1 lookups are updated in place (synchronously,
   * so no request sees them half done).
   */
  apply(changed: readonly PreparedEvent[], state: FeedState): void {
    if (changed.length > 0) {
      const incoming = new Map(changed.map((event) => [event.facts.eventID, event]));
      const byID = new Map(this.byID);
      for (const event of incoming.values()) {
        const previous = byID.get(event.facts.eventID);
        if (previous) this.v1Index.remove(previous);
        this.v1Index.add(event);
        byID.set(event.facts.eventID, event);
      }
      const kept = this.ordered.filter((event) => !incoming.has(event.facts.eventID));
      this.ordered = mergeOrdered(kept, [...incoming.values()].sort(byServingOrder));
      this.byID = byID;
    }
    this.state = state;
  }

  /**
   * One page of GET /v2/events/ for the caller's plan, tagged by what decides its bytes: the shape and
   * the code's release, each event's content, stamps and staleness, and the next cursor; each item by its
   * event's part of that, the shape and the release. A caller that holds the page of `held.tag` gets it
   * back as unchanged, without the items being made or sent; one that holds items of `held.itemTags` gets
   * those empty (it has their bytes), so a renewal of a page of many events where a few changed costs those few.
   */
  list(
    query: EventQuery,
    plan: PlanScope,
    page: { limit: number; cursor: string },
    nowMs: number,
    held: HeldEventPage = {},
  ): TaggedEventPage {
    const shape = shapeFor(query, plan, this.fairOddsBookmakers);
    const { served, nextCursor } = this.select(query, plan, page, nowMs, cursorCodec, cursorBinding(query));
    // What renders each item the same way: the shape and the code's release. Page and item tags both name it.
    const shapeKey = `${this.release}\n${shapeIdentity(shape)}`;
    const hash = createHash("sha256").update(shapeKey).update(`\n${nextCursor}`);
    for (const event of served) hash.update(`\n${event.tagPart(nowMs)}`);
    const tag = hash.digest("base64url");
    if (held.tag !== undefined && held.tag === tag)
      return { items: [], itemTags: [], nextCursor, tag, unchanged: true };
    const shapeTag = truncatedHash(shapeKey, SHAPE_TAG_BYTES);
    const holds = new Set(held.itemTags);
    const itemTags = served.map((event) => event.itemTag(shapeTag, nowMs));
    const items = served.map((event, index) =>
      holds.has(itemTags[index] as string) ? HELD_ITEM : event.json(shape, nowMs),
    );
    return { items, itemTags, nextCursor, tag, unchanged: false };
  }

  /**
   * Internal ids of v1 ids (ev_..., bookmakerID:id, pl_...). An id naming nothing (a v2 id
   * included: v1 never translates them) becomes one no event has, so it selects nothing.
   */
  resolveV1(kind: "events" | "external" | "players", ids: readonly string[]): string[] {
    return ids.map((id) => this.v1Index.resolve(kind, id) ?? v1.unresolvedV1Id(id));
  }

  /** One page of the v1 events or odds routes: the same selection as v2, v1 renderings. */
  listV1(
    query: EventQuery,
    request: V1Request,
    plan: PlanScope,
    page: { limit: number; cursor: string },
    nowMs: number,
  ): V1EventPage {
    const shape = shapeFor(query, plan, this.fairOddsBookmakers);
    const binding = {
      ...cursorBinding(query),
      view: request.view,
      status: request.status,
      markets: request.marketIDs ? [...request.marketIDs].sort() : null,
    };
    const { served, nextCursor } = this.select(
      query,
      plan,
      page,
      nowMs,
      v1CursorCodec,
      binding,
      (facts) =>
        (request.status === undefined || v1StatusOf(facts) === request.status) &&
        // Results exist once an event has started (or was called off).
        (request.view !== "results" || facts.started || facts.ended || facts.cancelled),
    );
    let objects = 0;
    const items = served.map((event) => {
      const rendered = event.v1(request.view, shape, request.marketIDs, nowMs);
      objects += rendered.objects;
      return rendered.json;
    });
    return { items, nextCursor, objects };
  }

  private select(
    query: EventQuery,
    plan: PlanScope,
    page: { limit: number; cursor: string },
    nowMs: number,
    codec: CursorCodec<typeof pagePositionSchema>,
    binding: Record<string, unknown>,
    also: (facts: EventFacts) => boolean = () => true,
  ): { served: PreparedEvent[]; nextCursor: string } {
    const after: PagePosition | undefined = page.cursor ? codec.decode(page.cursor, binding) : undefined;
    const selected: PreparedEvent[] = [];
    for (const event of this.candidates(query, after, nowMs)) {
      if (!planAllowsEvent(event.facts, plan) || !selectsEvent(event.facts, query, nowMs) || !also(event.facts))
        continue;
      selected.push(event);
      if (selected.length > page.limit) break;
    }
    const served = selected.slice(0, page.limit);
    const last = served[served.length - 1];
    return {
      served,
      nextCursor: selected.length > page.limit && last ? codec.encode(binding, positionOf(last.facts)) : "",
    };
  }

  /** Events in serving order from just after the cursor, skipping what the cut-off or startsAfter excludes anyway. */
  private *candidates(query: EventQuery, after: PagePosition | undefined, nowMs: number): Iterable<PreparedEvent> {
    if (query.eventIDs.length > 0) {
      const wanted = [...new Set(query.eventIDs)]
        .map((eventID) => this.byID.get(eventID))
        .filter((event): event is PreparedEvent => event !== undefined)
        .sort((a, b) => compareOrder(positionOf(a.facts), positionOf(b.facts)));
      yield* after ? wanted.filter((event) => compareOrder(positionOf(event.facts), after) > 0) : wanted;
      return;
    }
    const ordered = this.ordered;
    const earliest = earliestStartMs(query, nowMs) ?? query.startsAfterMs ?? Number.NEGATIVE_INFINITY;
    let start = firstIndex(ordered, (event) => event.facts.startsAtMs >= earliest);
    if (after)
      start = Math.max(
        start,
        firstIndex(ordered, (event) => compareOrder(positionOf(event.facts), after) > 0),
      );
    for (let i = start; i < ordered.length; i++) {
      const event = ordered[i] as PreparedEvent;
      if (query.startsBeforeMs !== undefined && event.facts.startsAtMs >= query.startsBeforeMs) return;
      yield event;
    }
  }
}

function byServingOrder(a: PreparedEvent, b: PreparedEvent): number {
  return compareOrder(positionOf(a.facts), positionOf(b.facts));
}

/** Two lists in serving order as one. */
function mergeOrdered(a: readonly PreparedEvent[], b: readonly PreparedEvent[]): PreparedEvent[] {
  const merged: PreparedEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length)
    merged.push(
      byServingOrder(a[i] as PreparedEvent, b[j] as PreparedEvent) <= 0
        ? (a[i++] as PreparedEvent)
        : (b[j++] as PreparedEvent),
    );
  while (i < a.length) merged.push(a[i++] as PreparedEvent);
  while (j < b.length) merged.push(b[j++] as PreparedEvent);
  return merged;
}

/**
 * The v1 ids of the events held, updated per event. A player may be in several events: their
 * pl_ id resolves while any event held has them. Events claiming one bookmaker id (which a source
 * should never send) resolve to the last of them in serving order.
 */
class V1Index {
  private readonly events = new Map<string, string>();
  private readonly external = new Map<string, Set<PreparedEvent>>();
  private readonly players = new Map<string, { playerID: string; events: number }>();

  resolve(kind: "events" | "external" | "players", id: string): string | undefined {
    if (kind === "events") return this.events.get(id);
    if (kind === "players") return this.players.get(id)?.playerID;
    let last: PreparedEvent | undefined;
    for (const event of this.external.get(id) ?? []) if (!last || byServingOrder(event, last) > 0) last = event;
    return last?.facts.eventID;
  }

  add(event: PreparedEvent): void {
    this.events.set(event.v1ID, event.facts.eventID);
    for (const external of event.externalIDs) {
      const claimants = this.external.get(external);
      if (claimants) claimants.add(event);
      else this.external.set(external, new Set([event]));
    }
    for (const [v1PlayerID, playerID] of event.v1PlayerIDs) {
      const held = this.players.get(v1PlayerID);
      if (held) held.events++;
      else this.players.set(v1PlayerID, { playerID, events: 1 });
    }
  }

  remove(event: PreparedEvent): void {
    this.events.delete(event.v1ID);
    for (const external of event.externalIDs) {
      const claimants = this.external.get(external);
      claimants?.delete(event);
      if (claimants?.size === 0) this.external.delete(external);
    }
    for (const v1PlayerID of event.v1PlayerIDs.keys()) {
      const held = this.players.get(v1PlayerID);
      if (held && --held.events === 0) this.players.delete(v1PlayerID);
    }
  }
}
