// Feed tokens to oddID tokens. The grammar itself is the contracts package's (@odds/proto oddId),
// shared by every service that builds, decomposes or filters oddIDs.
import { oddId } from "@odds/proto";

/** Already a grammar token but for case: alphanumeric runs joined by single underscores. */
const CLEAN_TOKEN = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$/;

/** A feed token (any case, spaces or hyphens) as a grammar token. */
export function toToken(feedToken: string): string {
  // Nearly every feed token is clean already: one test instead of trimming and three rewrites.
  if (CLEAN_TOKEN.test(feedToken)) return feedToken.toLowerCase();
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
