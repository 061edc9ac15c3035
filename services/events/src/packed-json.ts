import { promisify } from "node:util";
import { deflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";

/**
 * JSON kept raw-deflated: how the store holds an event's contract and how the read model keeps
 * its renderings between reads (a fully priced event's JSON packs about tenfold). Packing runs on
 * the thread pool; unpacking is synchronous, on a read that missed the served-bytes cache.
 */
const deflate = promisify(deflateRaw);

export function packJson(json: string | Buffer): Promise<Buffer> {
  return deflate(json);
}

export function unpackJson(packed: Uint8Array): Buffer {
  return inflateRawSync(packed);
}

/** Packs fast, on this thread: for renderings, unpacked far more often than packed. */
export function packJsonFast(json: Buffer): Buffer {
  return deflateRawSync(json, { level: 1 });
}
