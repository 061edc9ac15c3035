import { createHash } from "node:crypto";
import stableStringify from "safe-stable-stringify";
import { z } from "zod";
import { InvalidArgumentError } from "./errors";

const CURSOR_VERSION = 1;

const envelopeSchema = z.object({
  v: z.literal(CURSOR_VERSION),
  k: z.string(),
  q: z.string(),
  p: z.unknown(),
});

/**
 * Opaque, versioned, base64url paging cursors bound to the query that produced them.
 * A cursor replayed against other filters, tampered with, or from another route is
 * rejected as an invalid `cursor` parameter; its position is validated by a schema,
 * never trusted as is.
 */
export class CursorCodec<P extends z.ZodType> {
  constructor(
    private readonly kind: string,
    private readonly position: P,
  ) {}

  encode(query: unknown, position: z.input<P>): string {
    const payload = { v: CURSOR_VERSION, k: this.kind, q: fingerprint(query), p: position };
    return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  }

  decode(token: string, query: unknown): z.output<P> {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalidCursor("is not a cursor returned by this API");
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    } catch {
      throw invalidCursor("is not a cursor returned by this API");
    }
    const envelope = envelopeSchema.safeParse(raw);
    if (!envelope.success || envelope.data.k !== this.kind)
      throw invalidCursor("is not a cursor returned by this route");
    if (envelope.data.q !== fingerprint(query)) throw invalidCursor("was issued for different query parameters");
    const position = this.position.safeParse(envelope.data.p);
    if (!position.success) throw invalidCursor("is malformed");
    return position.data;
  }
}

function invalidCursor(detail: string): InvalidArgumentError {
  return new InvalidArgumentError("cursor", detail);
}

/** Order-independent digest of a query's filters (paging fields excluded by the caller). */
function fingerprint(query: unknown): string {
  return createHash("sha256")
    .update(stableStringify(query) ?? "")
    .digest("base64url")
    .slice(0, 16);
}
