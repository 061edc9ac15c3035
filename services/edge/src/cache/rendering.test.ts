import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { decodeJsonPage, encodeJsonPage } from "@odds/platform";
import { common } from "@odds/proto";
import { Answer, ANSWER_OVERHEAD_BYTES, PART_OVERHEAD_BYTES } from "./answer";
import { contentTag, loadContentTags } from "./content-tag";
import { frameShared, SHARED_ITEM_MIN_MEAN_BYTES, SHARED_PAGE_MIN_BYTES } from "./rendering";

beforeAll(loadContentTags);

const HEAD = Buffer.from('{"success":true,"data":[');
const TAIL = Buffer.from('],"nextCursor":null}');

/** An event of about `bytes` bytes of JSON, its prices marked by `version`. */
function event(id: number, version: number, bytes = 20_000): object {
  return { eventID: `E${id}`, version, odds: "p".repeat(bytes) };
}

/** The items of a page as the edge receives them: views of one gRPC message, decoded as the client decodes it. */
function received(events: object[]): { items: Buffer[]; message: ArrayBufferLike } {
  const bytes = encodeJsonPage(
    common.JsonPage.create({ items: events.map((value) => Buffer.from(JSON.stringify(value))) }),
  );
  return { items: decodeJsonPage(bytes).items as Buffer[], message: bytes.buffer };
}

function joined(parts: readonly Buffer[]): unknown {
  return JSON.parse(Buffer.concat(parts).toString());
}

const page = (events: object[]) => ({ success: true, data: events, nextCursor: null });

describe("frameShared", () => {
  const base = Array.from({ length: 20 }, (_, id) => event(id, 1));

  test("frames a page too small to share whole, and keeps none of its items", () => {
    const small = Array.from({ length: 3 }, (_, id) => event(id, 1, 1_000));
    const fine = Array.from({ length: 40 }, (_, id) => event(id, 1, SHARED_ITEM_MIN_MEAN_BYTES / 2));
    for (const events of [small, fine]) {
      const previous = frameShared(received(events).items, HEAD, TAIL);
      const rendering = frameShared(received(events).items, HEAD, TAIL, previous.items);
      expect(rendering.parts).toHaveLength(1);
      expect(rendering.items).toHaveLength(0);
      expect(joined(rendering.parts)).toEqual(page(events));
    }
    expect(Buffer.concat(received(fine).items).length).toBeGreaterThan(SHARED_PAGE_MIN_BYTES);
  });

  test("frames a large page with nothing to share whole, in the message it arrived in, its items views of it", () => {
    const { items, message } = received(base);
    const rendering = frameShared(items, HEAD, TAIL);
    expect(rendering.parts).toHaveLength(1);
    expect(rendering.parts[0]!.buffer).toBe(message);
    expect(joined(rendering.parts)).toEqual(page(base));
    expect(rendering.items.map((item) => JSON.parse(item.toString()))).toEqual(base);
    expect(rendering.items.every((item) => item.buffer === message)).toBe(true);
  });

  test("a renewal that changed a few items shares the others with the rendering it renews, and copies those", () => {
    const first = frameShared(received(base).items, HEAD, TAIL);
    const renewed = base.map((value, id) => (id === 3 || id === 17 ? event(id, 2) : value));
    const { items, message } = received(renewed);
    const second = frameShared(items, HEAD, TAIL, first.items);
    expect(joined(second.parts)).toEqual(page(renewed));
    second.items.forEach((item, id) => {
      if (id === 3 || id === 17) expect(item.buffer.byteLength).toBe(item.length);
      else expect(item).toBe(first.items[id]);
    });
    // Nothing of the new message is kept: it is garbage once the page is rendered. What it holds is the first
    // rendering's block and the two copies.
    expect(second.parts.some((part) => part.buffer === message)).toBe(false);
    const blocks = new Set(second.parts.map((part) => part.buffer));
    const held = [...blocks].reduce((sum, block) => sum + block.byteLength, 0);
    expect(held - first.parts[0]!.buffer.byteLength).toBeLessThan(2 * 20_100 + 100);
    // The next renewal shares from the shared rendering: its items are the first one's and the copies.
    const third = frameShared(received(renewed).items, HEAD, TAIL, second.items);
    expect(third.items).toEqual(second.items);
    third.items.forEach((item, id) => expect(item).toBe(second.items[id]));
  });

  test("finds an unchanged item wherever it moved, and an item given twice is shared twice", () => {
    const first = frameShared(received(base).items, HEAD, TAIL);
    const moved = [event(99, 1), ...base.slice(0, 10).reverse(), base[4]!, ...base.slice(10, 18)];
    const rendering = frameShared(received(moved).items, HEAD, TAIL, first.items);
    expect(joined(rendering.parts)).toEqual(page(moved));
    expect(rendering.items[1]).toBe(first.items[9]);
    expect(rendering.items[6]).toBe(first.items[4]);
    expect(rendering.items[11]).toBe(first.items[4]);
    expect(rendering.items.at(-1)).toBe(first.items[17]);
  });

  test("a renewal shares from three quarters of its items' bytes; below, it is framed whole, and the next shares it", () => {
    const first = frameShared(received(base).items, HEAD, TAIL);
    // 5 of 20 items changed: three quarters of the bytes are the first rendering's.
    const quarterNew = base.map((value, id) => (id < 5 ? event(id, 2) : value));
    expect(frameShared(received(quarterNew).items, HEAD, TAIL, first.items).parts).toHaveLength(2 * 20 + 1);
    // 6 of 20: framed whole, in the message it arrived in.
    const mostlyNew = base.map((value, id) => (id < 6 ? event(id, 2) : value));
    const { items, message } = received(mostlyNew);
    const rendering = frameShared(items, HEAD, TAIL, first.items);
    expect(rendering.parts).toHaveLength(1);
    expect(rendering.parts[0]!.buffer).toBe(message);
    expect(rendering.items.some((item, id) => item === first.items[id])).toBe(false);
    expect(joined(rendering.parts)).toEqual(page(mostlyNew));
    expect(frameShared(received(mostlyNew).items, HEAD, TAIL, rendering.items).items[0]).toBe(rendering.items[0]);
  });
});

describe("an Answer in parts", () => {
  test("has the ETag and encodings of the same bytes in one Buffer, and counts the block it shares once", async () => {
    const events = Array.from({ length: 20 }, (_, id) => event(id, 1));
    const first = frameShared(received(events).items, HEAD, TAIL);
    const renewed = events.map((value, id) => (id === 0 ? event(id, 2) : value));
    const shared = new Answer(frameShared(received(renewed).items, HEAD, TAIL, first.items), 20);
    expect(shared.parts.length).toBe(2 * 20 + 1);
    const whole = Buffer.concat(shared.parts);
    expect(shared.length).toBe(whole.length);
    expect(shared.etag).toBe(contentTag(whole));
    expect(shared.etag).toBe(new Answer(Buffer.from(whole), 20).etag);
    expect(gunzipSync(await shared.bytes("gzip")).equals(whole)).toBe(true);
    expect(brotliDecompressSync(await shared.bytes("br")).equals(whole)).toBe(true);

    // The first rendering's block once, however many items view it, and each part's own block.
    const blocks = new Set(shared.parts.map((part) => part.buffer));
    expect(blocks.has(first.parts[0]!.buffer)).toBe(true);
    const held = [...blocks].reduce((sum, block) => sum + block.byteLength, 0);
    const made = (await shared.bytes("gzip")).buffer.byteLength + (await shared.bytes("br")).buffer.byteLength;
    const objects = (shared.parts.length + shared.items.length) * PART_OVERHEAD_BYTES;
    expect(shared.size).toBe(ANSWER_OVERHEAD_BYTES + objects + held + made);
    expect(held).toBeLessThan(first.parts[0]!.buffer.byteLength + 25_000);
  });
});
