import { createXXHash128, type IHasher } from "hash-wasm";

let hasher: IHasher | undefined;

/**
 * Loads the hash behind every answer's ETag (its WebAssembly is compiled once, asynchronously). The edge awaits it
 * before it serves; an answer made before it fails loudly rather than go without a validator.
 */
export async function loadContentTags(): Promise<void> {
  hasher ??= await createXXHash128();
}

/**
 * A strong validator of these bytes (of their concatenation, when given in parts: the same tag as the bytes joined):
 * XXH3's 128-bit hash, base64url (22 characters). It only has to tell one representation of a URL from the next, so a
 * fast non-cryptographic hash serves: SHA-256 of each cold answer took a sixth of the edge's CPU, and this takes about
 * a quarter of SHA-256's time (docs/performance.md "ETags by XXH3").
 */
export function contentTag(bytes: Uint8Array | readonly Uint8Array[]): string {
  if (!hasher) throw new Error("content tags are not loaded: await loadContentTags() before making answers");
  hasher.init();
  for (const part of bytes instanceof Uint8Array ? [bytes] : bytes) hasher.update(part);
  return Buffer.from(hasher.digest("binary")).toString("base64url");
}
