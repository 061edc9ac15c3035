import { promisify } from "node:util";
import { constants, crc32, deflateRaw, deflateRawSync, type ZlibOptions } from "node:zlib";
import { keptBytes } from "@odds/platform";
import { edgeMetrics } from "../system/metrics";

/*
 * gzip of a page of whole events made of one deflate segment per item, so the answer that renews a page and shares most
 * of its items (`frameShared`) compresses only what changed: a hot page of 100 events is renewed at every call of a
 * cycle, and gzip of its 36 MB took 290-430 ms of the thread pool each time. Each segment ends on a byte boundary with
 * a sync flush and is never the stream's last block, so the segments joined, an empty last block, and gzip's header and
 * trailer make one gzip stream that any gunzip reads (RFC 1951 §3.2.3, RFC 1952 §2.3; pigz's blocks). An item's
 * segment is compressed with the 32 KB before it in the page as its dictionary, as one stream would have it, so the
 * page is about as small as one stream makes it; it is reused only where the item before it is the same too. The
 * segments are those of the page's bytes, split where its items start and end, so equal pages give equal gzip bytes
 * however they were framed, as a strong ETag requires.
 */

/**
 * Pages whose items are smaller than this on average are gzipped as one stream: a finished event without odds is
 * 9-13 KB, and in segments such pages came out 5-13 % larger, while pages of priced events (150-900 KB each) came
 * out within 0.2 %.
 */
export const SEGMENTED_GZIP_MIN_MEAN_ITEM_BYTES = 64 * 1024;

/** zlib's default level, as the whole page's gzip is made; each segment ends on a byte boundary, not the stream. */
const SEGMENT_OPTIONS: ZlibOptions = { level: 6, finishFlush: constants.Z_SYNC_FLUSH };
/** deflate's window: what a segment may refer back to. */
const WINDOW_BYTES = 32 * 1024;

const deflateSegment = promisify(deflateRaw) as (bytes: Uint8Array, options: ZlibOptions) => Promise<Buffer>;

/** gzip's header: deflate, no flags, no modification time, no extra flags, OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
/** An empty last block of fixed codes: what closes the stream the segments make. */
const LAST_BLOCK = Buffer.from([0x03, 0x00]);
const COMMA = Buffer.from(",");
/** A literal refers back to nothing, so one segment of the comma serves between any two items. */
const COMMA_SEGMENT = deflateRawSync(COMMA, SEGMENT_OPTIONS);

/** `bytes` deflated as a segment that follows `before` in the page (its last 32 KB the dictionary). */
function segment(bytes: Buffer, before: Buffer | undefined): Promise<Buffer> {
  if (!before) return deflateSegment(bytes, SEGMENT_OPTIONS);
  return deflateSegment(bytes, {
    ...SEGMENT_OPTIONS,
    dictionary: before.subarray(Math.max(0, before.length - WINDOW_BYTES)),
  });
}

/** What precedes an item's bytes after the first: the item before it and the comma between them, its last 32 KB. */
function windowAfter(item: Buffer): Buffer {
  return Buffer.concat([item.subarray(Math.max(0, item.length - (WINDOW_BYTES - 1))), COMMA]);
}

/**
 * Items' segments, by the item before them and then the item (an answer that shares another's items holds the same
 * Buffers: `frameShared`); once a page's gzip is joined, views of it. Weak both ways: a segment lives while both items
 * do.
 */
const segmentsAfter = new WeakMap<Buffer, WeakMap<Buffer, Promise<Buffer>>>();
/** The segments of items that begin a page, compressed without a dictionary. */
const firstSegments = new WeakMap<Buffer, Promise<Buffer>>();

function segmentsFollowing(before: Buffer | undefined): WeakMap<Buffer, Promise<Buffer>> {
  if (!before) return firstSegments;
  let following = segmentsAfter.get(before);
  if (!following) {
    following = new WeakMap();
    segmentsAfter.set(before, following);
  }
  return following;
}

function segmentOf(item: Buffer, before: Buffer | undefined): Promise<Buffer> {
  const following = segmentsFollowing(before);
  let made = following.get(item);
  if (made) {
    edgeMetrics.answerGzipSegments.inc({ kind: "reused" });
    return made;
  }
  made = segment(item, before && windowAfter(before));
  following.set(item, made);
  made.catch(() => following.delete(item));
  edgeMetrics.answerGzipSegments.inc({ kind: "made" });
  return made;
}

/** A page framed as `frameItems` frames it: `head`, the items with a comma between each, `tail`. */
export interface FramedItems {
  readonly head: Buffer;
  readonly items: readonly Buffer[];
  readonly tail: Buffer;
}

/** Whether the page is gzipped in segments (`SEGMENTED_GZIP_MIN_MEAN_ITEM_BYTES`). */
export function gzippedInSegments(page: FramedItems): boolean {
  const itemBytes = page.items.reduce((sum, item) => sum + item.length, 0);
  return page.items.length > 0 && itemBytes >= page.items.length * SEGMENTED_GZIP_MIN_MEAN_ITEM_BYTES;
}

/**
 * The page's gzip, in one block of its own (a hit sends it in one write): each item's segment made on the thread pool,
 * or reused where an answer that shares the item and the one before it made it. The trailer's CRC-32 is of every byte
 * of the page, on this thread (about 4 GB/s here: 9 ms for 36 MB).
 */
export async function gzipInSegments(page: FramedItems): Promise<Buffer> {
  const { head, items, tail } = page;
  const [headSegment, tailSegment, ...itemSegments] = await Promise.all([
    segment(head, undefined),
    segment(tail, items.at(-1)),
    ...items.map((item, index) => segmentOf(item, items[index - 1])),
  ]);
  const parts: Buffer[] = [HEADER, headSegment!];
  let crc = crc32(head);
  let length = head.length;
  items.forEach((item, index) => {
    if (index > 0) {
      parts.push(COMMA_SEGMENT);
      crc = crc32(COMMA, crc);
      length += COMMA.length;
    }
    parts.push(itemSegments[index]!);
    crc = crc32(item, crc);
    length += item.length;
  });
  crc = crc32(tail, crc);
  length += tail.length;
  const trailer = Buffer.alloc(LAST_BLOCK.length + 8);
  LAST_BLOCK.copy(trailer);
  trailer.writeUInt32LE(crc >>> 0, LAST_BLOCK.length);
  // ISIZE: the length modulo 2^32.
  trailer.writeUInt32LE(length % 2 ** 32, LAST_BLOCK.length + 4);
  parts.push(tailSegment!, trailer);

  const gzip = keptBytes(Buffer.concat(parts));
  let at = HEADER.length + headSegment!.length;
  items.forEach((item, index) => {
    if (index > 0) at += COMMA_SEGMENT.length;
    const length = itemSegments[index]!.length;
    segmentsFollowing(items[index - 1]).set(item, Promise.resolve(gzip.subarray(at, at + length)));
    at += length;
  });
  return gzip;
}
