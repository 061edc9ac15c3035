/**
 * Bytes kept for long (a cached answer, a packed rendering, a market book) should hold only themselves. A Buffer under
 * 4 KB is cut from an 8 KB slab shared by all small Buffers, and zlib's output of a small input is a view of its 16 KB
 * output chunk: kept, a 1.4 KB packed book held 16 KB, a 900-byte answer 8 KB (docs/performance.md "The answer cache
 * counts what it holds"). A structured clone to or from a worker copies the whole block a view is cut from, so the copy
 * holds it too.
 */

/** The same bytes viewed as a Buffer, uncopied: a structured clone or a driver gives a Buffer back as a Uint8Array. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The memory a Buffer keeps alive: all of the block it is a view of. */
export function heldBytes(bytes: Uint8Array): number {
  return bytes.buffer.byteLength;
}

/**
 * The bytes in a block of their own when they view one over twice their size; otherwise as they are (a page framed in
 * the message it arrived in fills nearly all of it, and is not copied). A driver's binary field is read this way out of
 * its batch.
 */
export function keptBytes(bytes: Uint8Array): Buffer {
  if (heldBytes(bytes) <= 2 * bytes.length) return asBuffer(bytes);
  const own = Buffer.allocUnsafeSlow(bytes.length);
  own.set(bytes);
  return own;
}
