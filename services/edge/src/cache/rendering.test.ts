import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { decodeJsonPage, encodeJsonPage } from "@odds/platform";
import { common } from "@odds/proto";
import { Answer, ANSWER_OVERHEAD_BYTES, PART_OVERHEAD_BYTES } from "./answer";
import { contentTag, framedItemsTag, loadContentTags } from "./content-tag";
import { frameShared, SHARED_ITEM_MIN_MEAN_BYTES, SHARED_PAGE_MIN_BYTES } from "./rendering";
import { gzipSegmentsCounted } from "../../test/fixtures";

beforeAll(loadContentTags);

const HEAD = Buffer.from('{"success":true,"data":[');
const TAIL = Buffer.from('],"nextCursor":null}');

/** An event of about `bytes` bytes of JSON, its prices marked by `version`. */
function event(id: number, version: number, bytes = 20_000): object {
  return { eventID: `E${id}`, version, odds: "p".repeat(bytes) };
}

/**
 * The items of a page as the edge receives them: views of one gRPC message, decoded as the client decodes it. With
 * `held`, the source tags each item by its event and version and sends those whose tags are in `held` empty.
 */
function received(
  events: object[],
  held?: readonly string[],
): { items: Buffer[]; itemTags: string[]; message: ArrayBufferLike } {
  const tags = held ? events.map(tagOf) : [];
  const bytes = encodeJsonPage(
    common.JsonPage.create({
      items: events.map((value, index) =>
        held?.includes(tags[index]!) ? Buffer.alloc(0) : Buffer.from(JSON.stringify(value)),
      ),
      itemTags: tags,
    }),
  );
  const decoded = decodeJsonPage(bytes);
  return { items: decoded.items as Buffer[], itemTags: decoded.itemTags, message: bytes.buffer };
}

/** A source's tag of an event's bytes (`event`): its id and version. */
function tagOf(value: object): string {
  const { eventID, version } = value as { eventID: string; version: number };
  return `${eventID}@${version}`;
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
      const previous = frameShared(received(events), HEAD, TAIL);
      const rendering = frameShared(received(events), HEAD, TAIL, previous);
      expect(rendering.parts).toHaveLength(1);
      expect(rendering.items).toHaveLength(0);
      expect(joined(rendering.parts)).toEqual(page(events));
    }
    expect(Buffer.concat(received(fine).items).length).toBeGreaterThan(SHARED_PAGE_MIN_BYTES);
  });

  test("frames a large page with nothing to share whole, in the message it arrived in, its items views of it", () => {
    const { items, message } = received(base);
    const rendering = frameShared({ items }, HEAD, TAIL);
    expect(rendering.parts).toHaveLength(1);
    expect(rendering.parts[0]!.buffer).toBe(message);
    expect(joined(rendering.parts)).toEqual(page(base));
    expect(rendering.items.map((item) => JSON.parse(item.toString()))).toEqual(base);
    expect(rendering.items.every((item) => item.buffer === message)).toBe(true);
  });

  test("a renewal that changed a few items shares the others with the rendering it renews, and copies those", () => {
    const first = frameShared(received(base), HEAD, TAIL);
    const renewed = base.map((value, id) => (id === 3 || id === 17 ? event(id, 2) : value));
    const { items, message } = received(renewed);
    const second = frameShared({ items }, HEAD, TAIL, first);
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
    const third = frameShared(received(renewed), HEAD, TAIL, second);
    expect(third.items).toEqual(second.items);
    third.items.forEach((item, id) => expect(item).toBe(second.items[id]));
  });

  test("finds an unchanged item wherever it moved, and an item given twice is shared twice", () => {
    const first = frameShared(received(base), HEAD, TAIL);
    const moved = [event(99, 1), ...base.slice(0, 10).reverse(), base[4]!, ...base.slice(10, 18)];
    const rendering = frameShared(received(moved), HEAD, TAIL, first);
    expect(joined(rendering.parts)).toEqual(page(moved));
    expect(rendering.items[1]).toBe(first.items[9]);
    expect(rendering.items[6]).toBe(first.items[4]);
    expect(rendering.items[11]).toBe(first.items[4]);
    expect(rendering.items.at(-1)).toBe(first.items[17]);
  });

  test("a renewal shares from three quarters of its items' bytes; below, it is framed whole, and the next shares it", () => {
    const first = frameShared(received(base), HEAD, TAIL);
    // 5 of 20 items changed: three quarters of the bytes are the first rendering's.
    const quarterNew = base.map((value, id) => (id < 5 ? event(id, 2) : value));
    expect(frameShared(received(quarterNew), HEAD, TAIL, first).parts).toHaveLength(2 * 20 + 1);
    // 6 of 20: framed whole, in the message it arrived in.
    const mostlyNew = base.map((value, id) => (id < 6 ? event(id, 2) : value));
    const { items, message } = received(mostlyNew);
    const rendering = frameShared({ items }, HEAD, TAIL, first);
    expect(rendering.parts).toHaveLength(1);
    expect(rendering.parts[0]!.buffer).toBe(message);
    expect(rendering.items.some((item, id) => item === first.items[id])).toBe(false);
    expect(joined(rendering.parts)).toEqual(page(mostlyNew));
    expect(frameShared(received(mostlyNew), HEAD, TAIL, rendering).items[0]).toBe(rendering.items[0]);
  });
});

describe("frameShared, items the source left out", () => {
  const base = Array.from({ length: 20 }, (_, id) => event(id, 1));
  const changedAt = (ids: number[]) => base.map((value, id) => (ids.includes(id) ? event(id, 2) : value));

  test("an item sent empty under a tag the renewed rendering holds is that rendering's item", () => {
    const first = frameShared(received(base, []), HEAD, TAIL);
    expect(first.itemTags).toEqual(base.map(tagOf));
    const renewed = changedAt([3, 17]);
    const sent = received(renewed, first.itemTags);
    // Only the changed events crossed: the message holds two items' bytes, not twenty.
    expect(sent.items.filter((item) => item.length > 0)).toHaveLength(2);
    expect(sent.message.byteLength).toBeLessThan(3 * 20_100);
    const second = frameShared(sent, HEAD, TAIL, first);
    expect(joined(second.parts)).toEqual(page(renewed));
    expect(second.itemTags).toEqual(renewed.map(tagOf));
    second.items.forEach((item, id) => {
      if (id === 3 || id === 17) expect(JSON.parse(item.toString())).toEqual(renewed[id]);
      else expect(item).toBe(first.items[id]);
    });
    // Moved, and given twice: found by its tag wherever it is.
    const moved = [renewed[17]!, renewed[0]!, renewed[0]!, renewed[5]!];
    const third = frameShared(received(moved, second.itemTags), HEAD, TAIL, second);
    expect(joined(third.parts)).toEqual(page(moved));
    [17, 0, 0, 5].forEach((id, index) => expect(third.items[index]).toBe(second.items[id]));
  });

  test("a renewal that changed more than a quarter is framed whole, the held items copied in, and is shared next", () => {
    const first = frameShared(received(base, []), HEAD, TAIL);
    const mostlyNew = changedAt([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const rendering = frameShared(received(mostlyNew, first.itemTags), HEAD, TAIL, first);
    expect(rendering.parts).toHaveLength(1);
    expect(rendering.parts[0]!.buffer).not.toBe(first.parts[0]!.buffer);
    expect(joined(rendering.parts)).toEqual(page(mostlyNew));
    expect(rendering.itemTags).toEqual(mostlyNew.map(tagOf));
    const next = frameShared(received(mostlyNew, rendering.itemTags), HEAD, TAIL, rendering);
    next.items.forEach((item, id) => expect(item).toBe(rendering.items[id]));
    expect(joined(next.parts)).toEqual(page(mostlyNew));
  });

  test("an item sent empty under a tag the edge does not hold fails the rendering, never frames an empty item", () => {
    const first = frameShared(received(base, []), HEAD, TAIL);
    const foreign = received(base, base.map(tagOf));
    expect(() => frameShared(foreign, HEAD, TAIL, { items: first.items, itemTags: [] })).toThrow(
      /item 0 empty under a tag this edge does not hold/,
    );
  });
});

describe("an Answer in parts", () => {
  test("is gzipped in segments of its items: the same bytes framed whole or shared, its unchanged items' reused", async () => {
    const events = Array.from({ length: 20 }, (_, id) => event(id, 1, 70_000));
    const first = new Answer(frameShared(received(events), HEAD, TAIL), 20);
    const renewed = events.map((value, id) => (id === 3 ? event(id, 2, 70_000) : value));
    const shared = new Answer(frameShared(received(renewed), HEAD, TAIL, first), 20);
    const whole = new Answer(frameShared(received(renewed), HEAD, TAIL), 20);
    expect(shared.parts.length).toBeGreaterThan(1);
    expect(whole.parts).toHaveLength(1);

    await first.bytes("gzip");
    const before = await gzipSegmentsCounted();
    const sharedGzip = await shared.bytes("gzip");
    // The renewal compressed its changed item and the one after it, and took the other 18 from the answer it renews.
    expect(await gzipSegmentsCounted()).toEqual({ made: before.made + 2, reused: before.reused + 18 });
    expect(gunzipSync(sharedGzip).equals(Buffer.concat(shared.parts))).toBe(true);
    // One representation, one ETag: the same bytes however the page was framed.
    expect(sharedGzip.equals(await whole.bytes("gzip"))).toBe(true);

    // A page of small items (finished events without odds) is gzipped as one stream.
    const small = Array.from({ length: 20 }, (_, id) => event(id, 1, 8_000));
    const smallAnswer = new Answer(frameShared(received(small), HEAD, TAIL), 20);
    expect(smallAnswer.items.length).toBe(20);
    const smallBefore = await gzipSegmentsCounted();
    expect((await smallAnswer.bytes("gzip")).equals(gzipSync(Buffer.concat(smallAnswer.parts), { level: 6 }))).toBe(
      true,
    );
    expect(await gzipSegmentsCounted()).toEqual(smallBefore);
  });

  test("has the ETag and encodings of the same bytes in one Buffer, and counts the block it shares once", async () => {
    const events = Array.from({ length: 20 }, (_, id) => event(id, 1));
    const first = frameShared(received(events), HEAD, TAIL);
    const renewed = events.map((value, id) => (id === 0 ? event(id, 2) : value));
    const shared = new Answer(frameShared(received(renewed), HEAD, TAIL, first), 20);
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

  test("of tagged items has the ETag of its frame and tags: the same framed whole, shared or renewed; another if changed", () => {
    const events = Array.from({ length: 20 }, (_, id) => event(id, 1));
    const first = new Answer(frameShared(received(events, []), HEAD, TAIL), 20);
    expect(first.etag).toBe(framedItemsTag(HEAD, events.map(tagOf), TAIL));
    expect(first.etag).not.toBe(contentTag(first.parts));
    // The same page renewed with every item held, and again as a shared rendering beside one changed item and back.
    const held = new Answer(frameShared(received(events, first.itemTags), HEAD, TAIL, first), 20);
    expect(Buffer.concat(held.parts).equals(Buffer.concat(first.parts))).toBe(true);
    expect(held.etag).toBe(first.etag);
    const renewed = events.map((value, id) => (id === 4 ? event(id, 2) : value));
    const changed = new Answer(frameShared(received(renewed, first.itemTags), HEAD, TAIL, first), 20);
    expect(changed.parts.length).toBeGreaterThan(1);
    expect(changed.etag).toBe(framedItemsTag(HEAD, renewed.map(tagOf), TAIL));
    expect(changed.etag).not.toBe(first.etag);
    const back = new Answer(frameShared(received(events, changed.itemTags), HEAD, TAIL, changed), 20);
    expect(back.etag).toBe(first.etag);
    // Another frame (the next cursor) is another ETag; a page whose items are not tagged is tagged by its bytes.
    const otherTail = Buffer.from('],"nextCursor":"c2"}');
    expect(new Answer(frameShared(received(events, []), HEAD, otherTail), 20).etag).not.toBe(first.etag);
    const untagged = new Answer(frameShared(received(events), HEAD, TAIL), 20);
    expect(untagged.etag).toBe(contentTag(untagged.parts));
  });
});
