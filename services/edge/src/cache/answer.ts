import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { contentTag } from "./content-tag";

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export type Encoding = "br" | "gzip" | "identity";

/** Below this many bytes an answer is sent uncompressed (koa-compress's threshold too). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * One rendered answer, as the cache keeps it: the envelope's bytes, its entity count (objects in
 * `data`, what rate limits and usage count) and a strong ETag per representation. The gzip and
 * brotli encodings are made once, on the first request that accepts them, and kept beside it.
 */
export class Answer {
  readonly etag: string;
  private readonly encoded = new Map<Exclude<Encoding, "identity">, Promise<Buffer>>();

  constructor(
    readonly body: Buffer,
    readonly entities: number,
    /** The source's tag of the page this answer frames, when the source tags pages: a reload names it. */
    readonly sourceTag?: string,
  ) {
    this.etag = contentTag(body);
  }

  /** The strong validator of one representation (each encoding is its own representation). */
  etagOf(encoding: Encoding): string {
    return encoding === "identity" ? `"${this.etag}"` : `"${this.etag}-${encoding}"`;
  }

  /**
   * Bytes kept in memory, for the cache's size bound: the body and room for its encodings, made
   * later. gzip at level 6 and brotli at quality 5 make about 6 % of a JSON page each (5.9-6.1 %
   * measured on the benchmark's event pages), so a quarter more covers both with margin. Counting
   * them as large as the body kept any page over a third of ANSWER_CACHE_MAX_BYTES out of the cache,
   * and such a page was loaded and compressed again on every request.
   */
  get size(): number {
    return Math.ceil(this.body.length * 1.25);
  }

  compressible(): boolean {
    return this.body.length >= COMPRESS_THRESHOLD_BYTES;
  }

  bytes(encoding: Encoding): Promise<Buffer> {
    if (encoding === "identity") return Promise.resolve(this.body);
    let pending = this.encoded.get(encoding);
    if (!pending) {
      // zlib runs on the thread pool, so a large first compression never blocks the event loop.
      pending =
        encoding === "gzip"
          ? gzipAsync(this.body, { level: 6 })
          : brotliAsync(this.body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length,
              },
            });
      this.encoded.set(encoding, pending);
      pending.catch(() => this.encoded.delete(encoding));
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
