import { inflateRawSync } from "node:zlib";
import {
  appendToJsonArray,
  PACKED_END,
  packJson,
  packJsonArray,
  packJsonPiece,
  packJsonSync,
  unpackJson,
  unpackJsonPiece,
} from "./packed-json";

// About 200 KB of JSON with multi-byte characters: many of zlib's 16 KB output pieces.
const json = Buffer.from(
  JSON.stringify(
    Array.from({ length: 2_000 }, (_, index) => ({ index, name: `Géelong Cats ${index} 🏉`, odds: "+150" })),
  ),
);

describe("packed JSON", () => {
  it("unpacks what it packed, on the thread pool or this thread, fast or small", async () => {
    for (const packed of [await packJson(json), packJsonSync(json), packJsonSync(json, { fast: true })]) {
      expect(packed.length).toBeLessThan(json.length / 4);
      expect(unpackJson(packed)).toEqual(json);
    }
  });

  it("gives what it packs on this thread a block of its own when zlib's chunk is over twice its size", () => {
    // A small market book: zlib's output of it is a view of its 16 KB output chunk.
    const book = Buffer.from(
      JSON.stringify({ "points-home-game-ml-home": { marketName: "Moneyline", byBookmaker: {} } }),
    );
    for (const packed of [packJsonSync(book), packJsonSync(book, { fast: true })]) {
      expect(packed.buffer.byteLength).toBe(packed.length);
      expect(unpackJson(packed)).toEqual(book);
    }
    const large = packJsonSync(json);
    expect(large.buffer.byteLength).toBeLessThanOrEqual(2 * large.length);
  });

  it("unpacks into one buffer of the length it is told, and to the same JSON whatever the length told", () => {
    const packed = packJsonSync(json, { fast: true });
    const sized = unpackJson(packed, { bytes: json.length });
    expect(sized).toEqual(json);
    // zlib's own buffer, returned whole but for the byte that lets it see the end: no pieces joined into a copy.
    expect(sized.buffer.byteLength).toBe(json.length + 1);
    expect(sized.byteOffset).toBe(0);
    for (const bytes of [0, 1, json.length - 1, json.length, json.length * 2])
      expect(unpackJson(packed, { bytes })).toEqual(json);
  });

  it("joins pieces packed apart into one stream; a piece packed without a dictionary also inflates alone", () => {
    const parts = [json.subarray(0, 70_000), json.subarray(70_000, 70_001), json.subarray(70_001)];
    const pieces = parts.map((part) => packJsonPiece(part, { level: 3 }));
    expect(unpackJson(Buffer.concat([...pieces, PACKED_END]))).toEqual(json);
    pieces.forEach((piece, index) => expect(unpackJsonPiece(piece)).toEqual(parts[index]));
  });

  describe("an appendable array", () => {
    // Items like history's ticks: ids, oddIDs and bookmakers drawn from a vocabulary that recurs across appends.
    const players = Array.from(
      { length: 60 },
      (_, index) => `PLAYER_${((index * 7_919) % 10_007).toString(36)}_${index}`,
    );
    const books = [
      "sportsbet",
      "tab",
      "ladbrokes_au",
      "neds",
      "pointsbet_au",
      "betfair_ex_au",
      "bet365_au",
      "unibet_au",
    ];
    const items = Array.from({ length: 2_000 }, (_, index) => ({
      _id: ((index * 2_654_435_761) % 4_294_967_296).toString(36),
      oddID: `disposals-${players[(index * 7) % 60]}_1_AFL-game-ou-${index % 2 ? "over" : "under"}`,
      bookmakerID: books[(index * 3) % 8],
      decimalOdds: 1 + ((index * 37) % 400) / 100,
      changedAt: 1_793_513_314_286 + index * 1_000,
    }));
    const arrayOf = (from: number, to: number) => JSON.stringify(items.slice(from, to));
    const all = Buffer.from(arrayOf(0, items.length));
    // The array grown by 20 appends, as an hour's bucket of history ticks grows by one cycle's ticks at a time.
    const appends = Array.from({ length: 20 }, (_, index) => arrayOf(index * 100, (index + 1) * 100));
    const grown = appends.slice(1).reduce((array, more) => appendToJsonArray(array, more), packJsonArray(appends[0]!));

    it("holds the JSON of every item appended, in order, as one stream", () => {
      expect(unpackJson(grown.packed)).toEqual(all);
      expect(inflateRawSync(grown.packed)).toEqual(all);
      expect(grown.bytes).toBe(all.length);
      expect(unpackJson(grown.packed, { bytes: grown.bytes })).toEqual(all);
    });

    it("packs only what is appended: the held pieces are kept byte for byte", () => {
      const held = packJsonArray(arrayOf(0, 1_000));
      const appended = appendToJsonArray(held, arrayOf(1_000, 1_010));
      expect(appended.packed.subarray(0, held.closeAt)).toEqual(held.packed.subarray(0, held.closeAt));
      expect(appended.closeAt).toBeGreaterThan(held.closeAt);
      expect(unpackJson(appended.packed)).toEqual(Buffer.from(arrayOf(0, 1_010)));
    });

    it("stays about as small as the array packed whole, each piece referring back to the JSON before it", () => {
      const whole = packJsonArray(all);
      expect(grown.packed.length).toBeLessThan(whole.packed.length * 1.15);
      // Without the held JSON as its dictionary, each piece would pack on its own: far larger.
      const alone = appends.map((more) => packJsonPiece(more)).reduce((sum, piece) => sum + piece.length, 0);
      expect(grown.packed.length).toBeLessThan(alone * 0.8);
    });

    it("appends to an empty array, and items of an empty array to none", () => {
      const empty = packJsonArray("[]");
      expect(unpackJson(empty.packed).toString()).toBe("[]");
      const one = appendToJsonArray(empty, arrayOf(0, 1));
      expect(unpackJson(one.packed).toString()).toBe(arrayOf(0, 1));
      expect(unpackJson(appendToJsonArray(one, "[]").packed).toString()).toBe(arrayOf(0, 1));
      expect(unpackJson(appendToJsonArray(empty, "[]").packed).toString()).toBe("[]");
    });

    it("packs a stream packed whole before again, whole, with the items appended", () => {
      const old = { packed: packJsonSync(arrayOf(0, 50)) };
      const appended = appendToJsonArray(old, arrayOf(50, 60));
      expect(unpackJson(appended.packed).toString()).toBe(arrayOf(0, 60));
      expect(appended).toEqual(packJsonArray(arrayOf(0, 60)));
    });

    it("does not trust a closeAt kept beside a stream packed again whole by a writer that knows nothing of it", () => {
      const held = packJsonArray(arrayOf(0, 300));
      const repacked = { ...held, packed: packJsonSync(arrayOf(0, 320)) };
      const appended = appendToJsonArray(repacked, arrayOf(320, 330));
      expect(unpackJson(appended.packed).toString()).toBe(arrayOf(0, 330));
      // And one pointing a byte off its closing piece.
      for (const closeAt of [held.closeAt - 1, held.closeAt + 1])
        expect(unpackJson(appendToJsonArray({ ...held, closeAt }, arrayOf(300, 310)).packed).toString()).toBe(
          arrayOf(0, 310),
        );
    });

    it("takes a wrong length of the held JSON for a hint only", () => {
      const held = packJsonArray(arrayOf(0, 300));
      for (const bytes of [1, held.bytes - 1, held.bytes * 3]) {
        const appended = appendToJsonArray({ ...held, bytes }, arrayOf(300, 310));
        expect(unpackJson(appended.packed).toString()).toBe(arrayOf(0, 310));
        expect(appended.bytes).toBe(Buffer.byteLength(arrayOf(0, 310)));
      }
    });
  });
});
