import { promisify } from "node:util";
import { constants, deflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";
import { keptBytes } from "./kept-bytes";

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

/**
 * Packs on this thread. `fast` (here and above) trades size for speed (renderings, unpacked far more often than packed).
 * What it packs is kept (a rendering, a market book), so small output is given a block of its own (`keptBytes`).
 */
export function packJsonSync(json: string | Buffer, options: { fast?: boolean } = {}): Buffer {
  return keptBytes(deflateRawSync(json, options.fast ? { level: 1 } : {}));
}

/** An empty final block (fixed Huffman, end of block): closes pieces packed apart (`packJsonPiece`) into one stream. */
export const PACKED_END = Buffer.from([0x03, 0x00]);

/**
 * Packs one piece of a stream, on this thread. It ends in a sync flush (byte-aligned, not final), so pieces packed
 * apart join into one raw-deflate stream, closed by PACKED_END, that `unpackJson` inflates whole. `dictionary`: the
 * bytes just before the piece in that stream (zlib keeps their last 32 KiB), which the piece may then refer back to,
 * so it packs about as small as if packed with them; a piece packed without one also inflates alone
 * (`unpackJsonPiece`).
 */
export function packJsonPiece(bytes: string | Buffer, options: { level?: number; dictionary?: Buffer } = {}): Buffer {
  return deflateRawSync(bytes, { ...options, finishFlush: constants.Z_SYNC_FLUSH });
}

/** A piece packed without a dictionary, inflated alone: up to its flush, no final block expected. */
export function unpackJsonPiece(piece: Uint8Array): Buffer {
  return inflateRawSync(piece, { finishFlush: constants.Z_SYNC_FLUSH });
}

/** A JSON array kept packed so that items are appended without packing the held ones again (`appendToJsonArray`). */
export interface PackedJsonArray {
  /** The array's JSON as one raw-deflate stream (`unpackJson`). */
  packed: Buffer;
  /** Where its closing piece (the `]` and the stream's end) starts: appended items are packed in before it. */
  closeAt: number;
  /** The length of the array's JSON. */
  bytes: number;
}

/** The closing bracket as a piece of its own, and the stream's end. */
const CLOSING = Buffer.concat([packJsonPiece("]"), PACKED_END]);
/** The most of what comes before it that a deflate piece can refer back to. */
const DEFLATE_WINDOW_BYTES = 32 * 1024;

/** An array's JSON (`[...]`) packed on this thread: all but its closing bracket in one piece, that in another. */
export function packJsonArray(json: string | Buffer): PackedJsonArray {
  const bytes = typeof json === "string" ? Buffer.from(json, "utf8") : json;
  const body = packJsonPiece(bytes.subarray(0, bytes.length - 1));
  return { packed: Buffer.concat([body, CLOSING]), closeAt: body.length, bytes: bytes.length };
}

/**
 * The packed array with the items of `items` (an array's JSON, `[...]`) appended, on this thread. Only they are packed:
 * one more piece, before the closing one, whose dictionary is the end of the held JSON (inflated for it), so the array
 * stays about as small as if packed whole, while an append costs an inflate of what is held and a deflate of what is
 * added. A stream without `closeAt` (packed whole, before arrays were kept this way), or whose `closeAt` does not
 * point at its closing piece, is packed again, whole, with the items. `bytes`, the held JSON's length where known,
 * lets the inflate go into one buffer (`unpackJson`).
 */
export function appendToJsonArray(
  held: { packed: Uint8Array; closeAt?: number; bytes?: number },
  items: string | Buffer,
): PackedJsonArray {
  const json = unpackJson(held.packed, { bytes: held.bytes });
  const added = typeof items === "string" ? Buffer.from(items, "utf8") : items;
  // The items without their brackets, after a comma unless either array is empty ("[]").
  const separator = json.length > 2 && added.length > 2 ? "," : "";
  const tail = Buffer.concat([Buffer.from(separator), added.subarray(1, added.length - 1)]);
  const open = json.subarray(0, json.length - 1);
  if (!closesAt(held.packed, held.closeAt)) return packJsonArray(Buffer.concat([open, tail, Buffer.from("]")]));
  const dictionary = open.subarray(Math.max(0, open.length - DEFLATE_WINDOW_BYTES));
  const piece = packJsonPiece(tail, dictionary.length > 0 ? { dictionary } : {});
  return {
    packed: Buffer.concat([held.packed.subarray(0, held.closeAt), piece, CLOSING]),
    closeAt: held.closeAt + piece.length,
    bytes: open.length + tail.length + 1,
  };
}

/**
 * Whether the stream's closing piece starts at `closeAt`, so what comes before it can be kept as it is. A `closeAt`
 * kept beside a stream another writer packed again whole (one that knows nothing of it) points elsewhere, and is not
 * trusted.
 */
function closesAt(packed: Uint8Array, closeAt: number | undefined): closeAt is number {
  return (
    closeAt !== undefined && closeAt + CLOSING.length === packed.length && CLOSING.equals(packed.subarray(closeAt))
  );
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
