import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

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
  ) {
    this.etag = createHash("sha256").update(body).digest("base64url").slice(0, 27);
  }

  /** The strong validator of one representation (each encoding is its own representation). */
  etagOf(encoding: Encoding): string {
    return encoding === "identity" ? `"${this.etag}"` : `"${this.etag}-${encoding}"`;
  }

  /** Bytes kept in memory, for the cache's size bound (encodings are smaller than the body). */
  get size(): number {
    return this.body.length * 2;
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
