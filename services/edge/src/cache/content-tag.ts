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
  return tagOf(bytes instanceof Uint8Array ? [bytes] : bytes);
}

/** Begins what `framedItemsTag` hashes: no answer's bytes begin with a NUL, so its tags never meet `contentTag`'s. */
const FRAMED_ITEMS_DOMAIN = Buffer.from("\0framed items\0");

/**
 * A strong validator of a page framed around items its source tags (`head`, the items with a comma between each,
 * `tail`), made from the frame's bytes and the items' tags instead of the items' bytes. A source's item tag names its
 * item's bytes exactly (the edge already takes an item sent empty under a tag for the one it holds under that tag:
 * `frameShared`), so equal frames and tags mean equal bytes. Hashing a page's megabytes of events took about a tenth of
 * the edge's CPU on cold pages of 50 events (docs/performance.md "ETags from item tags"). The frame's lengths come
 * first and the tags as one JSON array last, so no two frames and tag lists hash the same input.
 */
export function framedItemsTag(head: Uint8Array, itemTags: readonly string[], tail: Uint8Array): string {
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32BE(head.length, 0);
  lengths.writeUInt32BE(tail.length, 4);
  return tagOf([FRAMED_ITEMS_DOMAIN, lengths, head, tail, Buffer.from(JSON.stringify(itemTags))]);
}

function tagOf(parts: readonly Uint8Array[]): string {
  if (!hasher) throw new Error("content tags are not loaded: await loadContentTags() before making answers");
  hasher.init();
  for (const part of parts) hasher.update(part);
  return Buffer.from(hasher.digest("binary")).toString("base64url");
}
