import { createGunzip, gunzipSync, gzipSync } from "node:zlib";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { gzipSegmentsCounted } from "../../test/fixtures";
import { gzipInSegments, gzippedInSegments, SEGMENTED_GZIP_MIN_MEAN_ITEM_BYTES } from "./gzip-segments";

const HEAD = Buffer.from('{"success":true,"data":[');
const TAIL = Buffer.from('],"nextCursor":"b25l"}');

/** Items of these sizes, each a JSON object whose text mixes repeats, digits and multi-byte characters. */
function itemsOf(sizes: number[]): Buffer[] {
  return sizes.map((size, index) => {
    let text = `{"eventID":"E${index}","name":"Südstern–Ōtaki","odds":"`;
    for (let n = 0; text.length < size; n++) text += `${(n * 7919) % 1000}.${index},`;
    return Buffer.from(`${text}"}`);
  });
}

/** `length` pseudo-random hex digits, the same for the same seed. */
function hexOf(seed: number, length: number): string {
  let state = seed;
  let text = "";
  while (text.length < length) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += (state >>> 8).toString(16).padStart(6, "0");
  }
  return text.slice(0, length);
}

/** The page `gzipInSegments` is given, as bytes. */
function framed(items: readonly Buffer[]): Buffer {
  return Buffer.concat([HEAD, Buffer.from(items.map((item) => item.toString()).join(",")), TAIL]);
}

describe("gzipInSegments", () => {
  test("makes one gzip stream of the page, its CRC and length those of every byte, whatever the items' sizes", async () => {
    for (const sizes of [[30], [20_000, 5, 300_000], Array.from({ length: 40 }, (_, n) => 1_000 + n * 997)]) {
      const items = itemsOf(sizes);
      const page = framed(items);
      const gzip = await gzipInSegments({ head: HEAD, items, tail: TAIL });
      // gunzip checks the trailer's CRC-32 and length against what it inflated.
      expect(gunzipSync(gzip).equals(page)).toBe(true);
      expect((await buffer(Readable.from([gzip]).pipe(createGunzip()))).equals(page)).toBe(true);
    }
  });

  test("reuses an item's segment where the item before it is the same too, and compresses the others", async () => {
    const items = itemsOf([80_000, 80_000, 80_000, 80_000]);
    await gzipInSegments({ head: HEAD, items, tail: TAIL });
    const before = await gzipSegmentsCounted();
    const [changed] = itemsOf([80_001]);
    const renewed = [items[0]!, changed!, items[2]!, items[3]!];
    const gzip = await gzipInSegments({ head: HEAD, items: renewed, tail: TAIL });
    // The changed item and the one after it (its dictionary changed) made; the first and the last reused.
    expect(await gzipSegmentsCounted()).toEqual({ made: before.made + 2, reused: before.reused + 2 });
    expect(gunzipSync(gzip).equals(framed(renewed))).toBe(true);
    // Reused again from the page just joined, still one stream.
    const again = await gzipInSegments({ head: HEAD, items: renewed.slice(0, 3), tail: TAIL });
    expect(await gzipSegmentsCounted()).toEqual({ made: before.made + 2, reused: before.reused + 5 });
    expect(gunzipSync(again).equals(framed(renewed.slice(0, 3)))).toBe(true);
  });

  test("is about as small as one stream for pages of whole events, and not used for pages of small items", async () => {
    // Events share their markets' names: each item begins with what the one before it ends with.
    const shared = hexOf(1, 16_000);
    const large = Array.from({ length: 6 }, (_, n) =>
      Buffer.from(`{"odds":"${shared}${hexOf(n + 2, 70_000)}${shared}"}`),
    );
    expect(gzippedInSegments({ head: HEAD, items: large, tail: TAIL })).toBe(true);
    const segmented = await gzipInSegments({ head: HEAD, items: large, tail: TAIL });
    expect(segmented.length).toBeLessThan(gzipSync(framed(large), { level: 6 }).length * 1.03);
    const small = itemsOf(Array.from({ length: 40 }, () => SEGMENTED_GZIP_MIN_MEAN_ITEM_BYTES / 8));
    expect(gzippedInSegments({ head: HEAD, items: small, tail: TAIL })).toBe(false);
  });
});
