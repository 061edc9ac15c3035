// v1 identifiers: opaque, stable, derived from our internal ids by a keyed hash, so a restart or a
// replay gives the same ids and nobody can compute a v1 id from a v2 id (the contract offers no translation).
import { createHmac } from "node:crypto";

export const V1_ID_KINDS = {
  event: { prefix: "ev_", length: 12 },
  player: { prefix: "pl_", length: 12 },
  market: { prefix: "mk_", length: 16 },
  outcome: { prefix: "oc_", length: 16 },
} as const;

export type V1IdKind = keyof typeof V1_ID_KINDS;

/**
 * The key of the hash. It is part of the id scheme: changing it renames every v1 object, so it is
 * fixed here rather than configured per deployment (two services with different keys would disagree).
 */
const ID_KEY = "odds-read-api/v1-ids/2026";

/** RFC 4648 base32 in lower case: every character is in [a-z2-7], inside the contract's [a-z0-9]. */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

function base32(bytes: Buffer, length: number): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (out.length === length) break;
  }
  return out;
}

/** The v1 id of an internal id (eventID, playerID, market group id, oddID). */
export function v1Id(kind: V1IdKind, internalId: string): string {
  const { prefix, length } = V1_ID_KINDS[kind];
  const digest = createHmac("sha256", ID_KEY).update(`${kind}\u0000${internalId}`).digest();
  return prefix + base32(digest, length);
}

/** Whether `value` has the shape of a v1 id of this kind (it may still name nothing). */
export function isV1Id(kind: V1IdKind, value: string): boolean {
  const { prefix, length } = V1_ID_KINDS[kind];
  return value.length === prefix.length + length && value.startsWith(prefix) && /^[a-z0-9]+$/.test(value.slice(3));
}

export const v1IdPattern = (kind: V1IdKind): RegExp =>
  new RegExp(`^${V1_ID_KINDS[kind].prefix}[a-z0-9]{${V1_ID_KINDS[kind].length}}$`);

/**
 * What a v1 id naming nothing resolves to: an id no internal record has (none starts with a NUL),
 * so a filter by it selects nothing rather than being dropped, and a v2 id is never translated.
 */
export function unresolvedV1Id(id: string): string {
  return `\u0000unresolved:${id}`;
}
