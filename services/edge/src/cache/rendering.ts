import { envelopeParts, frameItems, keptBytes } from "@odds/platform";
import { edgeMetrics } from "../system/metrics";

/**
 * An answer's bytes, as the cache keeps them: one Buffer, or, for a large page renewed while most of its items stayed
 * as they were, parts that share those items' memory with the rendering it renews. A client still reading an older
 * rendering holds it until the last byte is sent, so on a hot page of megabytes that changes while a cycle is written,
 * renderings that each held a whole page of their own were what the edge's peak was made of (docs/performance.md
 * "Renderings that share their unchanged items").
 */
export interface Rendering {
  /** The answer is these bytes in order. */
  readonly parts: readonly Buffer[];
  /** The page's items as views of `parts`' memory, for the next rendering to share: none where a page is not shared. */
  readonly items: readonly Buffer[];
  /** The source's tag of each of `items` (none when it tags no items): a renewal names them, and they come empty. */
  readonly itemTags: readonly string[];
  /** Where it keeps its items: the bytes before the first and after the last, which `parts` frame them between. */
  readonly frame?: { readonly head: Buffer; readonly tail: Buffer };
}

/** A page as a source sent it: its items, and each item's tag where it tags them (a held item comes empty). */
export interface SentItems {
  readonly items: readonly Uint8Array[];
  readonly itemTags?: readonly string[];
}

/** Pages with fewer bytes of items are framed whole: sharing them saves little and a copy of them is cheap. */
export const SHARED_PAGE_MIN_BYTES = 64 * 1024;

/**
 * Items smaller than this on average are not shared: a page of thousands of history ticks would be sent in thousands
 * of parts, each a Buffer object to keep. The pages worth sharing are pages of whole events (7-400 KB each).
 */
export const SHARED_ITEM_MIN_MEAN_BYTES = 4 * 1024;

/**
 * A renewal shares its items only when the rendering it renews holds at least this share of their bytes. A shared
 * rendering keeps alive the whole block those items view (the older page, framed where it arrived) plus copies of the
 * items that changed, so at three quarters it holds at most a quarter more than the page: about what a whole page
 * holds until its encodings are made. At a half it would hold up to half as much again: a hot 38 MB page would count
 * up to 67 MB with the room for its encodings, past the answer cache's default 64 MB bound, and not be kept.
 */
export const SHARED_MIN_FRACTION = 3 / 4;

/**
 * Frames a page's items between `head` and `tail`. An item the source sent empty, under a tag of `previous` (the
 * rendering this one renews, which named the tags of the items it holds), is that rendering's item: the source left
 * out the events the edge already has. When `previous` holds most of the items' bytes (`SHARED_MIN_FRACTION`), those
 * and the items byte for byte the same as one of its own, the rendering is made of those items' bytes and copies of
 * the others, so that the two renderings, alive together while clients read them, hold the unchanged items once.
 * Otherwise the page is framed whole as `frameItems` frames it (in the message it arrived in, where it can) and
 * becomes what the next renderings share. Either way the bytes, in order, are exactly the envelope around the items.
 */
export function frameShared(
  page: SentItems,
  head: Uint8Array,
  tail: Uint8Array,
  previous: Pick<Rendering, "items" | "itemTags"> = { items: [], itemTags: [] },
): Rendering {
  const held = heldItemsIn(page, previous);
  const items = page.items.map((item, index) => held[index] ?? item);
  const itemTags = page.itemTags?.length === items.length ? page.itemTags : [];
  const itemBytes = items.reduce((sum, item) => sum + item.length, 0);
  if (itemBytes < SHARED_PAGE_MIN_BYTES || itemBytes < items.length * SHARED_ITEM_MIN_MEAN_BYTES) {
    edgeMetrics.answerRenderings.inc({ kind: "whole" });
    return { parts: [keptBytes(frameItems(items, head, tail))], items: [], itemTags: [] };
  }
  const twins = twinsIn(previous.items, items, held);
  const sharedBytes = twins.reduce((sum, twin) => sum + (twin?.length ?? 0), 0);
  if (sharedBytes >= itemBytes * SHARED_MIN_FRACTION) {
    const kept = items.map((item, index) => twins[index] ?? keptBytes(Buffer.from(item)));
    const frame = { head: keptBytes(Buffer.from(head)), tail: keptBytes(Buffer.from(tail)) };
    const parts = envelopeParts(kept, frame.head, frame.tail);
    edgeMetrics.answerRenderings.inc({ kind: "shared" });
    return { parts, items: kept, itemTags, frame };
  }
  const body = keptBytes(frameItems(items, head, tail));
  edgeMetrics.answerRenderings.inc({ kind: "whole" });
  return {
    parts: [body],
    items: viewsOfItems(body, head.length, items),
    itemTags,
    frame: { head: body.subarray(0, head.length), tail: body.subarray(body.length - tail.length) },
  };
}

/**
 * For each item sent empty under a tag `previous` holds, its item of that tag. An empty item under a tag it does not
 * hold is a source's fault (items are JSON, never empty; a source leaves out only what the load named): an error,
 * never an empty item in a page.
 */
function heldItemsIn(page: SentItems, previous: Pick<Rendering, "items" | "itemTags">): (Buffer | undefined)[] {
  if (!page.itemTags || !page.items.some((item) => item.length === 0)) return [];
  const byTag = new Map(previous.itemTags.map((tag, index) => [tag, previous.items[index]]));
  return page.items.map((item, index) => {
    if (item.length > 0) return undefined;
    const found = byTag.get(page.itemTags?.[index] ?? "");
    if (!found) throw new Error(`the source sent item ${index} empty under a tag this edge does not hold`);
    return found;
  });
}

/**
 * For each item, an item of `previous` with the same bytes, if any: the held item it is (`held`), else first at the
 * same place, else of its length.
 */
function twinsIn(
  previous: readonly Buffer[],
  items: readonly Uint8Array[],
  held: readonly (Buffer | undefined)[],
): (Buffer | undefined)[] {
  let byLength: Map<number, Buffer[]> | undefined;
  return items.map((item, index) => {
    const kept = held[index];
    if (kept) return kept;
    const same = previous[index];
    if (same && same.equals(item)) return same;
    if (!byLength) {
      byLength = new Map();
      for (const candidate of previous) {
        const sized = byLength.get(candidate.length);
        if (sized) sized.push(candidate);
        else byLength.set(candidate.length, [candidate]);
      }
    }
    return byLength.get(item.length)?.find((candidate) => candidate.equals(item));
  });
}

/** The items as views of the body they were framed into: after `head`, one comma between each. */
function viewsOfItems(body: Buffer, headLength: number, items: readonly Uint8Array[]): Buffer[] {
  let at = headLength;
  return items.map((item) => {
    const view = body.subarray(at, at + item.length);
    at += item.length + 1;
    return view;
  });
}
