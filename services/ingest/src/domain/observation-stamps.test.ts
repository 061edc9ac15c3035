import type { BookmakerPrice, EventState } from "./model";
import { contentFingerprint } from "./observation-stamps";

const price = (bookmakerID: string, lastUpdatedAtMs: number, eventName = "Collingwood v Carlton"): BookmakerPrice => ({
  bookmakerID,
  odds: "+110",
  decimal: 2.1,
  available: true,
  lastUpdatedAtMs,
  eventName,
  deeplink: "https://book.example/e/1",
});

/** The members the fingerprint reads; the rest of an event is plain JSON like them. */
function event(options: { infoMs?: number; priceMs?: number; decimal?: number; eventName?: string } = {}): EventState {
  const byBookmaker = { sportsbet: { ...price("sportsbet", options.priceMs ?? 1000, options.eventName) } };
  if (options.decimal !== undefined) byBookmaker.sportsbet.decimal = options.decimal;
  return {
    eventID: "E1",
    info: { displayName: "Collingwood v Carlton", commenceTimeMs: 5, lastUpdatedAtMs: options.infoMs ?? 1000 },
    odds: { "points-home-game-ml-home": { oddID: "points-home-game-ml-home", byBookmaker, altLines: {} } },
  } as unknown as EventState;
}

describe("content fingerprint", () => {
  test("observation times alone do not change it", () => {
    expect(contentFingerprint(event({ infoMs: 2000, priceMs: 3000 }))).toBe(contentFingerprint(event()));
  });

  test("a price or any other member does", () => {
    expect(contentFingerprint(event({ decimal: 2.2 }))).not.toBe(contentFingerprint(event()));
    expect(contentFingerprint(event({ eventName: "Magpies v Blues" }))).not.toBe(contentFingerprint(event()));
  });

  test("text that looks like an observation time inside a string value is content", () => {
    const a = contentFingerprint(event({ eventName: 'x,"lastUpdatedAtMs":1' }));
    const b = contentFingerprint(event({ eventName: 'x,"lastUpdatedAtMs":2' }));
    expect(a).not.toBe(b);
  });

  test("times in any number form are blanked", () => {
    expect(contentFingerprint(event({ priceMs: 1.5e21 }))).toBe(contentFingerprint(event({ priceMs: -4 })));
  });
});
