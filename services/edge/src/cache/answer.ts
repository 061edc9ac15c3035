import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import { keptBytes } from "@odds/platform";
import { contentTag, framedItemsTag } from "./content-tag";
import { gzipInSegments, gzippedInSegments, type FramedItems } from "./gzip-segments";
import type { Rendering } from "./rendering";

export type Encoding = "br" | "gzip" | "identity";

type Compression = Exclude<Encoding, "identity">;

const COMPRESSIONS: readonly Compression[] = ["gzip", "br"];

/** Below this many bytes an answer is sent uncompressed (koa-compress's threshold too). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Room counted for each encoding not made yet. gzip at level 6 and brotli at quality 5 make about 6 % of a JSON
 * page each (5.9-6.1 % measured on the benchmark's event pages); an eighth covers either with margin. Counting
 * them as large as the body kept any page over a third of ANSWER_CACHE_MAX_BYTES out of the cache, and such a
 * page was loaded and compressed again on every request. A made encoding counts as what it holds.
 */
const ENCODING_ROOM = 0.125;

/**
 * What a kept answer holds beyond its bytes: the Answer, its encodings' promises, its ETag, each Buffer's
 * objects (a Buffer, its ArrayBuffer and backing store), the cache's entry, key map and slots. Measured at 1.4-1.9 KB
 * of heap an answer, 20,000 small answers with none to two encodings (docs/performance.md "The answer cache counts what
 * it holds").
 */
export const ANSWER_OVERHEAD_BYTES = 2048;

/**
 * Counted for each part of an answer in parts and each item it keeps for the next rendering to share. A view of a
 * Buffer measured at 107 bytes of heap with its array slot, a Buffer of its own at 193; an item is both an item and
 * a part, and most are views, so this covers the objects with room (docs/performance.md "Renderings that share their
 * unchanged items").
 */
export const PART_OVERHEAD_BYTES = 128;

/**
 * Counted for each item tag an answer keeps, beside its characters: the string's header and its array slot, with room.
 * A decoded 23-character tag measured at 47 bytes of heap with its slot.
 */
export const ITEM_TAG_OVERHEAD_BYTES = 32;

/**
 * One rendered answer, as the cache keeps it: the envelope's bytes (one Buffer, or parts shared with the rendering it
 * renewed: see `Rendering`), its entity count (objects in `data`, what rate limits and usage count) and a strong ETag
 * per representation. The gzip and brotli encodings are made once, on the first request that accepts them, and kept
 * beside it; a page of whole events has its gzip in segments shared with the answers that share its items
 * (`gzipInSegments`).
 */
export class Answer {
  readonly etag: string;
  /** The identity representation: these bytes in order. */
  readonly parts: readonly Buffer[];
  /** The page's items, for the rendering that renews this one to share (see `frameShared`). */
  readonly items: readonly Buffer[];
  /** The source's tag of each of `items`, where it tags them: a renewal names them, and the source leaves them out. */
  readonly itemTags: readonly string[];
  /** Bytes of the identity representation. */
  readonly length: number;
  /** The page as its items and what frames them, where its gzip is made in segments (`gzippedInSegments`). */
  private readonly framed: FramedItems | undefined;
  // Plain objects rather than Maps: a kept answer's objects count against the cache's bound (ANSWER_OVERHEAD_BYTES).
  private readonly encoded: { [encoding in Compression]?: Promise<Buffer> } = {};
  private readonly made: { [encoding in Compression]?: Buffer } = {};
  /** Told when an encoding is made, so a cache that keeps this answer counts it again (`size` changed). */
  private encodedListener?: () => void;

  constructor(
    body: Buffer | Rendering,
    readonly entities: number,
    /** The source's tag of the page this answer frames, when the source tags pages: a reload names it. */
    readonly sourceTag?: string,
  ) {
    const rendering: Rendering = Buffer.isBuffer(body) ? { parts: [keptBytes(body)], items: [], itemTags: [] } : body;
    this.parts = rendering.parts;
    this.items = rendering.items;
    this.itemTags = rendering.itemTags;
    const framed = rendering.frame && { ...rendering.frame, items: rendering.items };
    this.framed = framed && gzippedInSegments(framed) ? framed : undefined;
    this.length = this.parts.reduce((sum, part) => sum + part.length, 0);
    // A page of tagged items is tagged by its frame and its items' tags, which name their bytes: no megabytes hashed.
    this.etag =
      rendering.frame && rendering.itemTags.length > 0 && rendering.itemTags.length === rendering.items.length
        ? framedItemsTag(rendering.frame.head, rendering.itemTags, rendering.frame.tail)
        : contentTag(this.parts);
  }

  /** The strong validator of one representation (each encoding is its own representation). */
  etagOf(encoding: Encoding): string {
    return encoding === "identity" ? `"${this.etag}"` : `"${this.etag}-${encoding}"`;
  }

  /**
   * Bytes this answer keeps in memory, for the cache's size bound: the memory its parts and its made encodings hold
   * (a view holds all of the block it views, counted once however many of its parts view it: a rendering that
   * shares the items of an older one holds that one's block), room for the encodings not made yet, and its objects.
   */
  get size(): number {
    const blocks = new Set<ArrayBufferLike>(this.parts.map((part) => part.buffer));
    let bytes = ANSWER_OVERHEAD_BYTES;
    if (this.parts.length > 1 || this.items.length > 0) {
      bytes += (this.parts.length + this.items.length) * PART_OVERHEAD_BYTES;
    }
    for (const tag of this.itemTags) bytes += ITEM_TAG_OVERHEAD_BYTES + tag.length;
    if (this.compressible()) {
      for (const encoding of COMPRESSIONS) {
        const made = this.made[encoding];
        if (made) blocks.add(made.buffer);
        else bytes += Math.ceil(this.length * ENCODING_ROOM);
      }
    }
    for (const block of blocks) bytes += block.byteLength;
    return bytes;
  }

  /** `listener` is called each time an encoding is made from now on (one listener: the cache that keeps it). */
  onEncoded(listener: () => void): void {
    this.encodedListener = listener;
  }

  compressible(): boolean {
    return this.length >= COMPRESS_THRESHOLD_BYTES;
  }

  /** The bytes of a compressed representation, made on the first call. */
  bytes(encoding: Compression): Promise<Buffer> {
    let pending = this.encoded[encoding];
    if (!pending) {
      const made =
        encoding === "gzip" && this.framed
          ? gzipInSegments(this.framed)
          : compress(this.parts, this.length, encoding).then(keptBytes);
      pending = made.then((own) => {
        this.made[encoding] = own;
        this.encodedListener?.();
        return own;
      });
      this.encoded[encoding] = pending;
      pending.catch(() => delete this.encoded[encoding]);
    }
    return pending;
  }
}

const BROTLI_QUALITY = 5;

/**
 * zlib runs on the thread pool, so a large first compression never blocks the event loop. Parts are streamed through
 * it, not joined first: a copy of a page of megabytes is what sharing its parts saves. (`zlib.gzip` of one Buffer is
 * the same stream fed that Buffer.)
 */
function compress(parts: readonly Buffer[], length: number, encoding: Compression): Promise<Buffer> {
  const stream =
    encoding === "gzip"
      ? createGzip({ level: 6 })
      : createBrotliCompress({
          params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: length },
        });
  Readable.from(parts, { objectMode: false }).pipe(stream);
  return buffer(stream);
}

/**
 * A renewal's answer from a source that tags its pages: the held answer when the source said the page it named is
 * unchanged (its body, encodings and ETag kept), else the fresh one `render` makes.
 */
export function renewedAnswer(
  loaded: { unchanged?: true },
  held: Answer | undefined,
  route: string,
  render: () => Answer,
): Answer {
  if (!loaded.unchanged) return render();
  if (!held) throw new Error(`route ${route} answered unchanged to a load that named no page`);
  return held;
}
