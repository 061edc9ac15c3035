import { promisify } from "node:util";
import { deflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";

/**
 * JSON kept raw-deflated: how the stores hold documents that are read whole (an event's contract,
 * an hour of history ticks) and how the events read model keeps its renderings between reads (a
 * fully priced event's JSON packs about tenfold). `packJson` runs on the thread pool; the others run
 * on this thread.
 */
const deflate = promisify(deflateRaw);

export function packJson(json: string | Buffer, options: { fast?: boolean } = {}): Promise<Buffer> {
  return deflate(json, options.fast ? { level: 1 } : {});
}

/** Packs on this thread. `fast` (here and above) trades size for speed (renderings, unpacked far more often than packed). */
export function packJsonSync(json: string | Buffer, options: { fast?: boolean } = {}): Buffer {
  return deflateRawSync(json, options.fast ? { level: 1 } : {});
}

export function unpackJson(packed: Uint8Array): Buffer {
  return inflateRawSync(packed);
}
