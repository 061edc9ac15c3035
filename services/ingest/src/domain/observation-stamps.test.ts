import { createHash } from "node:crypto";
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

  test("is SHA-256 of the event's JSON with every observation time written as 0", () => {
    // Many prices, times of every length and sign, one at the very end of the text, a bookmaker named
    // like the member and a non-ASCII name: what the reused buffer and the in-place blanking must get right.
    const big = event({ eventName: "Ōkārito v Montréal" });
    const side = big.odds["points-home-game-ml-home"] as EventState["odds"][string];
    [0, -1, 7, 1.5e21, 1764547200000, -0.25].forEach((ms, index) => {
      side.byBookmaker[`book${index}`] = price(`book${index}`, ms, `Name ${index} ✓`);
    });
    side.byBookmaker["lastUpdatedAtMs"] = price("lastUpdatedAtMs", 12);
    const tail = { ...big, trailer: { note: "x", lastUpdatedAtMs: 99 } } as unknown as EventState;
    const expected = (value: unknown) =>
      createHash("sha256")
        .update(JSON.stringify(value).replace(/([{,]"lastUpdatedAtMs":)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, "$10"))
        .digest("base64url");
    expect(contentFingerprint(tail)).toBe(expected(tail));
    expect(contentFingerprint(big)).toBe(expected(big));
    // A smaller event after a larger one reads only its own bytes from the reused buffer, and back again.
    expect(contentFingerprint(event())).toBe(expected(event()));
    expect(contentFingerprint(tail)).toBe(expected(tail));
  });

  test("a member named like an observation time whose value is not a number is content", () => {
    const named = (value: unknown) => ({ ...event(), extra: { lastUpdatedAtMs: value } }) as unknown as EventState;
    expect(contentFingerprint(named("a"))).not.toBe(contentFingerprint(named("b")));
    expect(contentFingerprint(named({ at: 1 }))).not.toBe(contentFingerprint(named({ at: 2 })));
    expect(contentFingerprint(named(1))).toBe(contentFingerprint(named(2)));
  });
});
