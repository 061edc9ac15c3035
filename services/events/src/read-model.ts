import { CursorCodec, packJsonSync, unpackJson } from "@odds/platform";
import { pricing } from "@odds/proto";
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
  type OddsShape,
  type PagePosition,
  pagePositionSchema,
  planAllowsEvent,
  positionOf,
  selectsEvent,
  shapeCacheKey,
  shapeEvent,
  shapeFor,
  type PlanScope,
} from "./query";
import { settle, type SettlementBook } from "./grading/settlement";
import type { ContractEvent, ContractOdds } from "./render";
import {
  externalIDsOf,
  mergeMarketBook,
  renderV1Event,
  renderV1Odds,
  renderV1Result,
  v1StatusOf,
  type V1Rendered,
} from "./v1-render";
import { v1 } from "@odds/proto";
import { newerStamps, restampJson, stampsOf, type ObservationStamps } from "./stamps";

const FRESH_MARKER = '"stale":false';
const STALE_MARKER = '"stale":true';
/** Plan-driven renderings kept per event per cycle (tiers x include flags); request-specific shapes are not cached. */
const MAX_CACHED_SHAPES = 12;

/** The same JSON with info.stale true (info precedes odds, so the first marker after "info" is the field). */
function markedStale(fresh: Buffer): Buffer {
  const json = fresh.toString("utf8");
  const at = json.indexOf(FRESH_MARKER, json.indexOf('"info":'));
  return Buffer.from(json.slice(0, at) + STALE_MARKER + json.slice(at + FRESH_MARKER.length));
}

/**
 * Renderings are kept packed (raw-deflated, about a tenth of their size: a full-scale world of
 * ~700,000 prices is ~800 MB of JSON); the bytes served lately are kept unpacked here, bounded by
 * size, so a hot event costs no unpacking and memory stays flat whatever the world's size.
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
 */
const PARSED_CACHE_SIZE = 32;
const parsedContracts = new LRUCache<PreparedEvent, ContractEvent>({ max: PARSED_CACHE_SIZE });

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

/** One current event, rendered once per cycle; each distinct plan shape is rendered at most once. */
export class PreparedEvent {
  readonly facts: EventFacts;
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
  /** Packed renderings by shape key; shared by the restamped copies of the event (stamps are written in on unpacking). */
  private readonly renderings = new Map<string, Buffer>();
  /** Distinguishes this object (and so its stamps) in the served-bytes cache. */
  private readonly serial = ++preparedSerial;

  /** Every side the event has been priced on, as last seen: what its result is graded on. */
  readonly marketBook: Readonly<Record<string, ContractOdds>>;
  /** The verdicts as settled (documents from before settlements were stored: settled now, from their results). */
  readonly settlement: SettlementBook;

  constructor(
    contract: ContractEvent,
    readonly contentHash: string,
    /** The contract's JSON packed (packJson), when the caller has it. */
    packed?: Buffer,
    marketBook?: Readonly<Record<string, ContractOdds>>,
    settlement?: SettlementBook,
  ) {
    this.marketBook = marketBook ?? mergeMarketBook(undefined, contract);
    this.settlement =
      settlement ?? settle(undefined, contract, this.marketBook, 0, Date.parse(contract.info.lastUpdatedAt));
    this.facts = factsOf(contract);
    this.v1ID = v1.v1Id("event", contract.eventID);
    this.externalIDs = Object.entries(externalIDsOf(contract)).map(([bookmakerID, id]) => `${bookmakerID}:${id}`);
    this.v1PlayerIDs = new Map([...this.facts.playerIDs].map((playerID) => [v1.v1Id("player", playerID), playerID]));
    this.stamps = stampsOf(contract);
    this.full = packed ?? packJsonSync(JSON.stringify(contract), { fast: true });
    this.renderings.set(
      shapeCacheKey(FULL_SHAPE) as string,
      packJsonSync(JSON.stringify(shapeEvent(contract, FULL_SHAPE)), { fast: true }),
    );
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
    return Object.assign(copy, this, { stamps, serial: ++preparedSerial, v1Renderings: new Map<string, V1Json>() });
  }

  /** Packed JSON unpacked, carrying this event's stamps. */
  private unpacked(packed: Buffer): Buffer {
    return restampJson(unpackJson(packed), this.stamps, { inPlace: true });
  }

  private contract(): ContractEvent {
    let contract = parsedContracts.get(this);
    if (!contract) {
      contract = JSON.parse(this.unpacked(this.full).toString("utf8")) as ContractEvent;
      parsedContracts.set(this, contract);
    }
    return contract;
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
          ? v1Json(renderV1Result(contract, this.marketBook, this.settlement))
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
      bytes = Buffer.from(JSON.stringify(shapeEvent(this.contract(), shape)));
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
}

export interface EventPage {
  items: Buffer[];
  /** Empty on the last page. */
  nextCursor: string;
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
  private byID = new Map<string, PreparedEvent>();
  /** ev_ id, bookmakerID:id and pl_ id -> internal id: the v1 lookups, rebuilt with every change. */
  private v1Index = {
    events: new Map<string, string>(),
    external: new Map<string, string>(),
    players: new Map<string, string>(),
  };
  private ordered: readonly PreparedEvent[] = [];
  private state: FeedState = { version: 0, cycleId: "", lastCycleAtMs: 0 };

  constructor(options: { fairOddsBookmakers?: readonly string[] } = {}) {
    this.fairOddsBookmakers = options.fairOddsBookmakers ?? pricing.DEFAULT_FAIR_ODDS_BOOKMAKERS;
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

  contentHash(eventID: string): string | undefined {
    return this.byID.get(eventID)?.contentHash;
  }

  marketBook(eventID: string): Readonly<Record<string, ContractOdds>> | undefined {
    return this.byID.get(eventID)?.marketBook;
  }

  settlement(eventID: string): SettlementBook | undefined {
    return this.byID.get(eventID)?.settlement;
  }

  /** Replaces the given events and records the feed state they belong to. */
  apply(changed: readonly PreparedEvent[], state: FeedState): void {
    if (changed.length > 0) {
      const byID = new Map(this.byID);
      for (const event of changed) byID.set(event.facts.eventID, event);
      this.ordered = [...byID.values()].sort((a, b) => compareOrder(positionOf(a.facts), positionOf(b.facts)));
      this.byID = byID;
      this.v1Index = v1IndexOf(this.ordered);
    }
    this.state = state;
  }

  /** One page of GET /v2/events/ for the caller's plan. */
  list(query: EventQuery, plan: PlanScope, page: { limit: number; cursor: string }, nowMs: number): EventPage {
    const shape = shapeFor(query, plan, this.fairOddsBookmakers);
    const { served, nextCursor } = this.select(query, plan, page, nowMs, cursorCodec, cursorBinding(query));
    return { items: served.map((event) => event.json(shape, nowMs)), nextCursor };
  }

  /**
   * Internal ids of v1 ids (ev_..., bookmakerID:id, pl_...). An id naming nothing (a v2 id
   * included: v1 never translates them) becomes one no event has, so it selects nothing.
   */
  resolveV1(kind: "events" | "external" | "players", ids: readonly string[]): string[] {
    const index = this.v1Index[kind];
    return ids.map((id) => index.get(id) ?? v1.unresolvedV1Id(id));
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

function v1IndexOf(events: readonly PreparedEvent[]) {
  const index = {
    events: new Map<string, string>(),
    external: new Map<string, string>(),
    players: new Map<string, string>(),
  };
  for (const event of events) {
    index.events.set(event.v1ID, event.facts.eventID);
    for (const external of event.externalIDs) index.external.set(external, event.facts.eventID);
    for (const [v1PlayerID, playerID] of event.v1PlayerIDs) index.players.set(v1PlayerID, playerID);
  }
  return index;
}
