// Every paged route's page size, defined once: the edge validates with it, the OpenAPI documents it,
// and the services enforce it on their own RPCs.

export interface PageLimit {
  /** Used when the request names no limit (0 on the wire). */
  default: number;
  max: number;
}

export const PAGE_LIMITS = {
  events: { default: 10, max: 100 },
  history: { default: 1000, max: 5000 },
  teams: { default: 50, max: 250 },
  players: { default: 50, max: 250 },
  markets: { default: 100, max: 10_000 },
} as const satisfies Record<string, PageLimit>;

/** A requested page size (0 = the default) checked against its route's bounds: the size, or why it is refused. */
export function checkPageLimit(requested: number, bounds: PageLimit): { limit: number } | { refused: string } {
  if (requested === 0) return { limit: bounds.default };
  if (!Number.isInteger(requested) || requested < 1) return { refused: `expected an integer from 1 to ${bounds.max}` };
  if (requested > bounds.max) return { refused: `at most ${bounds.max}` };
  return { limit: requested };
}

/** The v1 preview's page sizes (its own contract; v2's above are unchanged). */
export const V1_PAGE_LIMITS = {
  events: { default: 10, max: 100 },
  odds: { default: 10, max: 50 },
  teams: { default: 50, max: 250 },
  players: { default: 50, max: 250 },
  markets: { default: 100, max: 1000 },
  history: { default: 1000, max: 5000 },
} as const satisfies Record<string, PageLimit>;

/** /v1/events/lookup: external ids per request. */
export const V1_LOOKUP_MAX_IDS = 100;
