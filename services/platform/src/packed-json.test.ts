import { packJson, packJsonSync, unpackJson } from "./packed-json";

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
});
