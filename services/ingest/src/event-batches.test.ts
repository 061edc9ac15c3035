import { DEFAULT_BATCH_LIMITS, eventBatches } from "./cycle-runner";
import type { EventState } from "./domain/model";

/** An event with `sides` sides priced by `books` bookmakers, each with one alternate line. */
function event(eventID: string, sides: number, books: number): EventState {
  const prices = Object.fromEntries(Array.from({ length: books }, (_, b) => [`book${b}`, {}]));
  const odds = Object.fromEntries(
    Array.from({ length: sides }, (_, s) => [
      `stat${s}-all-game-ou-over`,
      { byBookmaker: prices, altLines: { "40.5": prices } },
    ]),
  );
  return { eventID, odds } as unknown as EventState;
}

describe("events write batches", () => {
  test("deep events are split by their prices, so no call nears gRPC's message bound", () => {
    // 200 events of 150 sides x 8 books (x2 with alternate lines) would be one call of 480 000 prices.
    const events = Array.from({ length: 200 }, (_, i) => event(`e${i}`, 150, 8));
    const batches = eventBatches(events, DEFAULT_BATCH_LIMITS);
    expect(batches.flat().map((e) => e.eventID)).toEqual(events.map((e) => e.eventID));
    for (const batch of batches)
      expect(batch.length * 150 * 8 * 2).toBeLessThanOrEqual(DEFAULT_BATCH_LIMITS.pricesPerCall);
    expect(batches.length).toBe(Math.ceil(200 / Math.floor(DEFAULT_BATCH_LIMITS.pricesPerCall / 2400)));
  });

  test("thin events are split by count, and one event larger than the bound still goes alone", () => {
    const thin = Array.from({ length: 450 }, (_, i) => event(`e${i}`, 2, 2));
    expect(eventBatches(thin, DEFAULT_BATCH_LIMITS).map((b) => b.length)).toEqual([200, 200, 50]);
    const huge = event("huge", 5000, 10);
    expect(eventBatches([event("a", 1, 1), huge, event("b", 1, 1)], DEFAULT_BATCH_LIMITS).map((b) => b.length)).toEqual(
      [1, 1, 1],
    );
  });
});
