import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { heldBytes, keptBytes } from "@odds/platform";
import { contentTag } from "./content-tag";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

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
 * of heap an answer, 20,000 small answers with none to two encodings (README "The answer cache counts what it holds").
 */
export const ANSWER_OVERHEAD_BYTES = 2048;

/**
 * One rendered answer, as the cache keeps it: the envelope's bytes, its entity count (objects in
 * `data`, what rate limits and usage count) and a strong ETag per representation. The gzip and
 * brotli encodings are made once, on the first request that accepts them, and kept beside it.
 */
export class Answer {
  readonly etag: string;
  readonly body: Buffer;
  // Plain objects rather than Maps: a kept answer's objects count against the cache's bound (ANSWER_OVERHEAD_BYTES).
  private readonly encoded: { [encoding in Compression]?: Promise<Buffer> } = {};
  private readonly made: { [encoding in Compression]?: Buffer } = {};
  /** Told when an encoding is made, so a cache that keeps this answer counts it again (`size` changed). */
  private encodedListener?: () => void;

  constructor(
    body: Buffer,
    readonly entities: number,
    /** The source's tag of the page this answer frames, when the source tags pages: a reload names it. */
    readonly sourceTag?: string,
  ) {
    this.body = keptBytes(body);
    this.etag = contentTag(this.body);
  }

  /** The strong validator of one representation (each encoding is its own representation). */
  etagOf(encoding: Encoding): string {
    return encoding === "identity" ? `"${this.etag}"` : `"${this.etag}-${encoding}"`;
  }

  /**
   * Bytes this answer keeps in memory, for the cache's size bound: the memory its body and its made encodings hold
   * (a view holds all of the block it views), room for the encodings not made yet, and its objects.
   */
  get size(): number {
    let bytes = ANSWER_OVERHEAD_BYTES + heldBytes(this.body);
    if (!this.compressible()) return bytes;
    for (const encoding of COMPRESSIONS) {
      const made = this.made[encoding];
      bytes += made ? heldBytes(made) : Math.ceil(this.body.length * ENCODING_ROOM);
    }
    return bytes;
  }

  /** `listener` is called each time an encoding is made from now on (one listener: the cache that keeps it). */
  onEncoded(listener: () => void): void {
    this.encodedListener = listener;
  }

  compressible(): boolean {
    return this.body.length >= COMPRESS_THRESHOLD_BYTES;
  }

  bytes(encoding: Encoding): Promise<Buffer> {
    if (encoding === "identity") return Promise.resolve(this.body);
    let pending = this.encoded[encoding];
    if (!pending) {
      // zlib runs on the thread pool, so a large first compression never blocks the event loop.
      pending = (
        encoding === "gzip"
          ? gzipAsync(this.body, { level: 6 })
          : brotliAsync(this.body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length,
              },
            })
      ).then((bytes) => {
        const own = keptBytes(bytes);
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
