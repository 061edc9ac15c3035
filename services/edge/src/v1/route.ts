import type { common } from "@odds/proto";
import type { z } from "zod";
import type { KeyGrant } from "../access/api-key";
import type { PlanFeature } from "../access/plan-features";

/** A v1 page: rendered v1 objects, the next cursor, and the usage in objects. */
export interface V1Page {
  items: Uint8Array[];
  nextCursor: string | null;
  /** 1 per item plus 1 per bookmaker price inside it. */
  objects: number;
  /** The source's tag of the page, when it tags its pages: a renewal names it. */
  tag?: string;
  /** The page is the one the load named (`heldTag`): no items were sent; the held answer stands. */
  unchanged?: true;
}

/**
 * One v1 GET route: the single declaration used to validate, to document and by the tests.
 * Path parameters (`:event_id`) are validated by the same query schema as the query string.
 */
export interface V1Route<Q extends z.ZodType = z.ZodType> {
  /** Below /v1, Koa style: "/events/:event_id/odds". */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  query: Q;
  item: z.ZodType;
  /** list: data is an array; object: data is the one item (404 when there is none). */
  data: "list" | "object";
  /** Statuses this route may answer besides 401, 403 and 429. */
  errors: number[];
  /** A part of v1 only some plans include: other keys get a 403 problem naming the plan. */
  requires?: PlanFeature;
  /**
   * `heldTag`: the tag of the page the caller holds for these very parameters and plan. A route whose source tags
   * its pages names it, and a source that finds the page the same answers `unchanged`.
   */
  load(params: z.output<Q>, grant: KeyGrant, heldTag?: string): Promise<V1Page>;
}

export function defineV1Route<Q extends z.ZodType>(route: V1Route<Q>): V1Route {
  return route as unknown as V1Route;
}

/** A service's JsonPage as a v1 page (objects 0 on the wire: one per item). */
export function fromV1JsonPage(page: common.JsonPage): V1Page {
  return {
    items: page.items,
    nextCursor: page.nextCursor === "" ? null : page.nextCursor,
    objects: page.objects || page.items.length,
    ...(page.tag ? { tag: page.tag } : {}),
    ...(page.unchanged ? { unchanged: true as const } : {}),
  };
}
