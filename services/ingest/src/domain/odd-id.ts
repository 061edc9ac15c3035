// Feed tokens to oddID tokens. The grammar itself is the contracts package's (@odds/proto oddId),
// shared by every service that builds, decomposes or filters oddIDs.
import { oddId } from "@odds/proto";

/** A feed token (any case, spaces or hyphens) as a grammar token. */
export function toToken(feedToken: string): string {
  return feedToken
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
}

/** statEntityID: home, away and all are lower-cased; a playerID or teamID keeps the feed's case. */
export function toStatEntityID(feedEntity: string): string {
  const token = toToken(feedEntity);
  return oddId.ENTITY_CLASSES.has(token) ? token : feedEntity.trim();
}
