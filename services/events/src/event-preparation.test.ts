import { events } from "@odds/proto";
import { eventProto, NOW } from "../test/fixtures";
import { builtEventPreparer } from "../test/harness";
import { packJsonSync } from "@odds/platform";
import {
  type HeldEvent,
  type PrepareRequest,
  prepareEvents,
  preparedFrom,
  prepareStoredEvents,
  type StoredEventData,
} from "./event-preparation";
import { PREPARATION_YOUNG_GENERATION_MB } from "./event-preparer";
import { MarketBook, mergeMarketBook } from "./market-book";
import { FULL_SHAPE } from "./query";
import { preparedEvent } from "./read-model";
import { contractJson, renderEvent } from "./render";

const finished = (eventId: string, resultsCorrectedAtMs = 0) =>
  events.Event.create({
    ...eventProto({ eventId, status: { started: true, ended: true, finalized: true } }),
    resultsCorrectedAtMs,
  });

function encoded(event: events.Event): Uint8Array {
  return events.Event.encode(event).finish();
}

/** What the read model would hold of a prepared event, as the preparer sends it. */
function heldAfter(preparation: ReturnType<typeof prepareEvents>[number]): HeldEvent {
  if (!preparation.changed) throw new Error(`${preparation.eventID} was not prepared as changed`);
  const { contentHash, settlement, marketBook } = preparation.parts;
  return { contentHash, settlement, marketBook };
}

describe("prepareEvents", () => {
  it("prepares a new event to what preparing its contract here gives, byte for byte", () => {
    const proto = eventProto({ eventId: "P1" });
    const [preparation] = prepareEvents({ events: [{ encoded: encoded(proto) }], observedAtMs: NOW });
    if (!preparation?.changed) throw new Error("a new event is prepared as changed");
    const here = preparedEvent(renderEvent(proto), preparation.parts.contentHash);
    const there = preparedFrom(preparation.parts);
    expect(there.json(FULL_SHAPE, NOW)).toEqual(here.json(FULL_SHAPE, NOW));
    expect(there.facts).toEqual(here.facts);
    expect(there.externalIDs).toEqual(here.externalIDs);
    expect(there.stamps).toEqual(here.stamps);
    expect(there.marketBook.sides()).toEqual(here.marketBook.sides());
  });

  it("names an event whose content is held unchanged by its stamps alone, and one whose content moved as changed", () => {
    const proto = eventProto({ eventId: "P2" });
    const [first] = prepareEvents({ events: [{ encoded: encoded(proto) }], observedAtMs: NOW });
    const held = heldAfter(first!);
    const observedLater = eventProto({ eventId: "P2", lastUpdatedAtMs: NOW });
    const moved = eventProto({ eventId: "P2", type: "prop" });
    const [again, changed] = prepareEvents({
      events: [
        { encoded: encoded(observedLater), held },
        { encoded: encoded(moved), held },
      ],
      observedAtMs: NOW,
    });
    expect(again).toEqual({ eventID: "P2", changed: false, stamps: expect.objectContaining({ lastUpdatedAtMs: NOW }) });
    expect(changed?.changed).toBe(true);
  });

  it("prepares an event again on a results correction alone, and grades it against the held book", () => {
    const [first] = prepareEvents({ events: [{ encoded: encoded(finished("P3")) }], observedAtMs: NOW });
    const held = heldAfter(first!);
    expect(Object.keys(held.settlement.markets).length).toBeGreaterThan(0);
    const [same, corrected] = prepareEvents({
      events: [
        { encoded: encoded(finished("P3")), held },
        { encoded: encoded(finished("P3", NOW + 1)), held },
      ],
      observedAtMs: NOW + 2,
    });
    expect(same?.changed).toBe(false);
    if (!corrected?.changed) throw new Error("a correction mark is a change");
    expect(corrected.parts.settlement.resultsCorrectedAtMs).toBe(NOW + 1);
    // Settled once: the verdicts keep the instant they were first settled at.
    expect(corrected.parts.settlement.markets).toEqual(held.settlement.markets);
  });

  it("gives the same preparations on the worker thread as here", async () => {
    const preparer = builtEventPreparer();
    try {
      const [first] = prepareEvents({ events: [{ encoded: encoded(finished("P4")) }], observedAtMs: NOW });
      const heldHere = preparedFrom((first as { parts: Parameters<typeof preparedFrom>[0] }).parts);
      const sent = [
        { eventID: "P4", encoded: encoded(finished("P4", NOW + 1)) },
        { eventID: "P5", encoded: encoded(eventProto({ eventId: "P5" })) },
      ];
      const request: PrepareRequest = {
        events: [{ encoded: sent[0]!.encoded, held: heldAfter(first!) }, { encoded: sent[1]!.encoded }],
        observedAtMs: NOW + 2,
      };
      const there = await preparer.prepare(sent, (eventID) => (eventID === "P4" ? heldHere : undefined), NOW + 2);
      const here = prepareEvents(request);
      expect(there.map((p) => p.eventID)).toEqual(["P4", "P5"]);
      // Bytes come back as Uint8Arrays, read as the same PreparedEvents.
      for (const [index, preparation] of there.entries()) {
        const expected = here[index]!;
        if (!preparation.changed || !expected.changed) throw new Error("both are changed");
        expect(preparedFrom(preparation.parts).json(FULL_SHAPE, NOW)).toEqual(
          preparedFrom(expected.parts).json(FULL_SHAPE, NOW),
        );
        expect(preparation.parts.settlement).toEqual(expected.parts.settlement);
        expect(Buffer.from(preparation.parts.packed)).toEqual(Buffer.from(expected.parts.packed));
      }
    } finally {
      await preparer.close();
    }
  });

  it("runs the preparation thread with a young generation of its own size, its old generation uncapped", async () => {
    const preparer = builtEventPreparer();
    try {
      const sent = Array.from({ length: 200 }, (_, i) => ({
        eventID: `Y${i}`,
        encoded: encoded(eventProto({ eventId: `Y${i}` })),
      }));
      const there = await preparer.prepare(sent, () => undefined, NOW);
      expect(there.map((p) => [p.eventID, p.changed])).toEqual(sent.map(({ eventID }) => [eventID, true]));
      const limits = preparer.threadLimits();
      expect(limits?.maxYoungGenerationSizeMb).toBe(PREPARATION_YOUNG_GENERATION_MB);
      // V8's own old generation, as the serving thread's: a cap there would end the thread in a large load.
      expect(limits?.maxOldGenerationSizeMb).toBeGreaterThanOrEqual(2048);
    } finally {
      await preparer.close();
    }
  });
});

describe("prepareStoredEvents", () => {
  /** An event as the store keeps it: its contract packed, with or without the book and settlement stored beside it. */
  function stored(
    eventId: string,
    withBook: boolean,
  ): { data: StoredEventData; contract: ReturnType<typeof renderEvent> } {
    const contract = renderEvent(finished(eventId));
    const marketBook = MarketBook.pack(mergeMarketBook(undefined, contract));
    return {
      contract,
      data: {
        packed: packJsonSync(contractJson(contract).full),
        contentHash: `hash-${eventId}`,
        ...(withBook ? { marketBook: marketBook.packed } : {}),
      },
    };
  }

  it("prepares a stored event, on the worker thread as here, to what preparing its contract here gives", async () => {
    const events = [stored("S1", true), stored("S2", false)];
    const preparer = builtEventPreparer();
    try {
      const there = await preparer.prepareStored(events.map(({ data }) => data));
      const here = prepareStoredEvents(events.map(({ data }) => data));
      expect(there.map((parts) => parts.facts.eventID)).toEqual(["S1", "S2"]);
      for (const [index, { contract, data }] of events.entries()) {
        const inPlace = preparedEvent(contract, data.contentHash);
        for (const parts of [there[index]!, here[index]!]) {
          const loaded = preparedFrom({ ...parts, packed: data.packed });
          expect(loaded.contentHash).toBe(data.contentHash);
          expect(loaded.json(FULL_SHAPE, NOW)).toEqual(inPlace.json(FULL_SHAPE, NOW));
          expect(loaded.facts).toEqual(inPlace.facts);
          expect(loaded.externalIDs).toEqual(inPlace.externalIDs);
          expect(loaded.stamps).toEqual(inPlace.stamps);
          // A stored book is kept; a document without one gets its book made from the contract.
          expect(loaded.marketBook.sides()).toEqual(inPlace.marketBook.sides());
          expect(loaded.settlement).toEqual(inPlace.settlement);
        }
      }
    } finally {
      await preparer.close();
    }
  });
});
