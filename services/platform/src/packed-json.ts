import { promisify } from "node:util";
import { constants, deflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";

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

/**
 * `bytes`: the JSON's length, when the caller knows it (it unpacked the same bytes before). zlib then
 * inflates into one buffer of that size and returns it, instead of joining 16 KB pieces into a copy
 * (on the benchmark's events, half the CPU of an unpacking). The buffer has one byte more: output that
 * fills it exactly makes zlib allocate another before it finds the stream's end. A wrong length
 * costs only the saving: pieces joined when it is short, an unused tail when it is long.
 */
export function unpackJson(packed: Uint8Array, options: { bytes?: number } = {}): Buffer {
  if (options.bytes === undefined) return inflateRawSync(packed);
  return inflateRawSync(packed, { chunkSize: Math.max(constants.Z_MIN_CHUNK, options.bytes + 1) });
}
