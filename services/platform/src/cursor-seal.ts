import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import stableStringify from "safe-stable-stringify";
import { z } from "zod";
import { InvalidArgumentError } from "./errors";

const SEAL_VERSION = 1;
/** 128 bits of HMAC-SHA256: forging one costs 2^128 guesses. */
const MAC_BYTES = 16;
/** A secret shorter than this is refused: cursors would be forgeable by brute force. */
export const MIN_CURSOR_SECRET_LENGTH = 32;

/** What a cursor is bound to besides its position: the route, the plan scope and the query that produced it. */
export interface CursorBinding {
  /** The route (or other page kind) that issued the cursor, for example "/v2/events/". */
  route: string;
  /** Everything of the caller's plan that shapes an answer, canonicalised (never the key itself). */
  scope: string;
  /** The query's filters, paging fields excluded; key order and list order of the caller's own making are kept. */
  query: unknown;
}

const sealedSchema = z.object({
  v: z.literal(SEAL_VERSION),
  /** The issuing service's own position token, opaque here. */
  c: z.string().min(1),
  r: z.string(),
  s: z.string(),
  q: z.string(),
});

/**
 * Signs paging cursors with HMAC-SHA256 and binds them to route, plan scope and query, so a
 * cursor cannot be forged, truncated, replayed on another route, with other filters, or by a
 * key on another plan: each is a 400 naming `cursor`. The position inside stays the issuer's
 * business (and is schema-checked there). Secrets rotate: cursors sealed with a previous
 * secret are still opened, new ones are sealed with the current one. Transport-neutral: any
 * paged route (v2 envelope or v1 links) seals its next cursor and opens the one it is sent.
 */
export class CursorSeal {
  private readonly secrets: Buffer[];

  constructor(current: string, previous: readonly string[] = []) {
    for (const secret of [current, ...previous]) {
      if (secret.length < MIN_CURSOR_SECRET_LENGTH) {
        throw new Error(`a cursor secret needs at least ${MIN_CURSOR_SECRET_LENGTH} characters`);
      }
    }
    this.secrets = [current, ...previous].map((secret) => Buffer.from(secret, "utf8"));
  }

  seal(position: string, binding: CursorBinding): string {
    const claims = { v: SEAL_VERSION, c: position, ...digests(binding) };
    const body = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
    return `${body}.${mac(this.secrets[0] as Buffer, body).toString("base64url")}`;
  }

  /** The issuer's position token, once the seal and every binding check out. */
  open(token: string, binding: CursorBinding): string {
    const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
    if (!match) throw invalidCursor("is not a cursor returned by this API");
    const [, body, signature] = match as unknown as [string, string, string];
    const given = Buffer.from(signature, "base64url");
    const genuine = this.secrets.some((secret) => {
      const expected = mac(secret, body);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!genuine) throw invalidCursor("is not a cursor returned by this API (altered or truncated)");
    let claims: z.output<typeof sealedSchema>;
    try {
      claims = sealedSchema.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
    } catch {
      throw invalidCursor("is not a cursor returned by this API");
    }
    const expected = digests(binding);
    if (claims.r !== expected.r) throw invalidCursor("was issued by another route");
    if (claims.s !== expected.s) throw invalidCursor("was issued to a key on another plan");
    if (claims.q !== expected.q) throw invalidCursor("was issued for different query parameters");
    return claims.c;
  }
}

function mac(secret: Buffer, body: string): Buffer {
  return createHmac("sha256", secret).update(body).digest().subarray(0, MAC_BYTES);
}

/** Short digests: the token stays small, and says nothing of the plan or filters it was bound to. */
function digests(binding: CursorBinding): { r: string; s: string; q: string } {
  return { r: digest(binding.route), s: digest(binding.scope), q: digest(stableStringify(binding.query) ?? "") };
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 11);
}

function invalidCursor(detail: string): InvalidArgumentError {
  return new InvalidArgumentError("cursor", detail);
}
