import { asBuffer, packJsonSync, unpackJson } from "@odds/platform";
import { events } from "@odds/proto";
import { settle, type SettlementBook } from "./grading/settlement";
import { MarketBook, mergeMarketBook } from "./market-book";
import { PackedRendering, type PackedRenderingData } from "./packed-rendering";
import { factsOf, type EventFacts } from "./query";
import { PreparedEvent, preparedEventParts } from "./read-model";
import {
  contractJson,
  renderEvent,
  renderOdds,
  type ContractEvent,
  type ContractOdds,
  type EventJsonParts,
} from "./render";
import { contentHashOf, stampsOfEvent, type ObservationStamps } from "./stamps";
import { externalIDsOf } from "./v1-render";

/*
 * What an apply does with each event it is sent: decode it, render it, and (when its content
 * changed) grade it and pack its renderings and market book. That is most of a cycle's CPU in the
 * events service (a profile of one of the benchmark's quiet cycles: 27.9 s of the serving thread for
 * about 600 changed events): on the serving thread it held every read behind it. `prepareEvents`
 * runs in a worker (`prepare-worker.ts`, by `EventPreparer`), and only plain data crosses: the
 * event's bytes and what the read model holds of it go, its parts come back. A load from the
 * store (the service's start, or a cycle another replica applied) prepares its events there too
 * (`prepareStoredEvents`): each is parsed and its default shape rendered and packed, which would
 * hold reads as long.
 */

/** What the read model holds of an event that its new copy is compared and graded against. */
export interface HeldEvent {
  contentHash: string;
  settlement: SettlementBook;
  /** Its market book as stored (`MarketBook.packed`). */
  marketBook: Uint8Array;
}

export interface PrepareRequest {
  /** The cycle's events (`events.Event` encoded), each once, with what the read model holds of it. */
  events: { encoded: Uint8Array; held?: HeldEvent }[];
  /** The instant the cycle observed its prices at: an event's lastUpdatedAt where ingest left it unset. */
  observedAtMs: number;
}

/** A changed event's parts as plain data (`preparedFrom` makes the PreparedEvent of them). */
export interface ChangedParts {
  contentHash: string;
  facts: EventFacts;
  externalIDs: Record<string, string>;
  stamps: ObservationStamps;
  packed: Uint8Array;
  packedDefault: PackedRenderingData;
  marketBook: Uint8Array;
  settlement: SettlementBook;
}

/** An event as the store keeps it (`EventStore.loadEventsSince`): what a load prepares. */
export interface StoredEventData {
  /** The full contract's JSON, packed (packJson). */
  packed: Uint8Array;
  contentHash: string;
  /** Its market book as stored (`MarketBook.packed`); absent in documents written before books were stored. */
  marketBook?: Uint8Array;
  /** Absent in documents written before settlements were stored. */
  settlement?: SettlementBook;
}

/** A stored event's parts but the packed contract, which the loading thread has already. */
export type StoredPreparation = Omit<ChangedParts, "packed">;

/** One event of the request, in its order: its content as held (only its stamps count), or changed. */
export type Preparation =
  | { eventID: string; changed: false; stamps: ObservationStamps }
  | { eventID: string; changed: true; parts: ChangedParts };

/**
 * The event as the contract renders it, its JSON in both stored forms, and a hash of its content:
 * the rendering without its observation times, so an event observed again unchanged keeps its
 * hash. Rendering sorts every map, so the hash does not depend on the order ingest built them in.
 */
function renderForStore(event: events.Event): {
  contract: ContractEvent;
  json: Buffer;
  /** The default shape (no alternate lines) in parts; packed only for an event that changed. */
  defaultJson: EventJsonParts;
  contentHash: string;
} {
  const contract = renderEvent(event);
  const rendered = contractJson(contract);
  return {
    contract,
    json: rendered.full,
    defaultJson: rendered.withoutAltLines,
    contentHash: contentHashOf(rendered.full),
  };
}

export function prepareEvents(request: PrepareRequest): Preparation[] {
  return request.events.map(({ encoded, held }) => prepareEvent(encoded, held, request.observedAtMs));
}

function prepareEvent(encoded: Uint8Array, held: HeldEvent | undefined, observedAtMs: number): Preparation {
  const event = withSourceWriteTime(events.Event.decode(encoded), observedAtMs);
  const stamps = stampsOfEvent(event);
  const rendered = renderForStore(event);
  // A correction mark alone is a change: the results it marks may equal those last rendered.
  const newCorrection = event.resultsCorrectedAtMs > (held?.settlement.resultsCorrectedAtMs ?? 0);
  if (held?.contentHash === rendered.contentHash && !newCorrection)
    return { eventID: event.eventId, changed: false, stamps };
  const { contract, contentHash } = rendered;
  // Markets closed at the end of an event stay in its market book, so its result can be graded.
  const heldBook = held ? MarketBook.stored(asBuffer(held.marketBook)).sides() : undefined;
  const marketBook = mergeMarketBook(heldBook, contract, closedSidesOf(event));
  return {
    eventID: event.eventId,
    changed: true,
    parts: {
      contentHash,
      facts: factsOf(contract),
      externalIDs: externalIDsOf(contract),
      stamps,
      packed: packJsonSync(rendered.json),
      packedDefault: PackedRendering.pack(rendered.defaultJson).data(),
      marketBook: MarketBook.pack(marketBook).packed,
      // Settled once; re-settled only on results the source marked corrected since.
      settlement: settle(held?.settlement, contract, marketBook, event.resultsCorrectedAtMs, observedAtMs),
    },
  };
}

/** Stored events made ready to serve, in their order: parsed, the default shape rendered and packed, the rest as stored. */
export function prepareStoredEvents(stored: StoredEventData[]): StoredPreparation[] {
  return stored.map((event) => {
    const packed = asBuffer(event.packed);
    const contract = JSON.parse(unpackJson(packed).toString("utf8")) as ContractEvent;
    const parts = preparedEventParts(contract, event.contentHash, {
      packed,
      ...(event.marketBook ? { marketBook: MarketBook.stored(asBuffer(event.marketBook)) } : {}),
      ...(event.settlement ? { settlement: event.settlement } : {}),
    });
    return {
      contentHash: parts.contentHash,
      facts: parts.facts,
      externalIDs: parts.externalIDs,
      stamps: parts.stamps,
      packedDefault: parts.packedDefault.data(),
      marketBook: parts.marketBook.packed,
      settlement: parts.settlement,
    };
  });
}

/** The PreparedEvent of a changed event's parts, as another thread sent them. */
export function preparedFrom(parts: ChangedParts): PreparedEvent {
  return new PreparedEvent({
    ...parts,
    packed: asBuffer(parts.packed),
    packedDefault: PackedRendering.fromData(parts.packedDefault),
    marketBook: MarketBook.stored(asBuffer(parts.marketBook)),
  });
}

/** info.lastUpdatedAt defaults to the cycle's source write time when ingest leaves it unset. */
function withSourceWriteTime(event: events.Event, observedAtMs: number): events.Event {
  if (event.info && event.info.lastUpdatedAtMs > 0) return event;
  return { ...event, info: { ...events.EventInfo.create(), ...event.info, lastUpdatedAtMs: observedAtMs } };
}

/** Sides the event was priced on whose quotes had closed before ingest first wrote it (a backfilled event). */
function closedSidesOf(event: events.Event): Record<string, ContractOdds> {
  return Object.fromEntries(Object.entries(event.closedOdds).map(([oddID, odds]) => [oddID, renderOdds(odds, oddID)]));
}
