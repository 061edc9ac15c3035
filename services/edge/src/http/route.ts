import type { common } from "@odds/proto";
import type { z } from "zod";
import type { KeyGrant } from "../access/api-key";
import type { Admitted } from "./admission";
import type { HeavyPages } from "./heavy-pages";

export type Caller = common.Caller;

/** What a list route hands to the envelope: contract objects already rendered as JSON. */
export interface RoutePage {
  items: Uint8Array[];
  nextCursor: string | null;
  notice?: string;
  /** The source's tag of this page's content, when it tags pages (see `KeyedRoute.load`). */
  tag?: string;
  /** The source answered that the page is still the one of the tag asked for: no items came. */
  unchanged?: true;
  /**
   * The source's tag of each item, in order, when it tags items. An item the load said it holds (`heldItemTags`)
   * came empty: it is the held answer's item of that tag (see `frameShared`).
   */
  itemTags?: string[];
}

/** What a route answers: a page of items, or one object as `data` (/health). */
export type RouteAnswer = RoutePage | { object: unknown };

/** Fields every route declares; the single declaration used to validate, to document and by the tests. */
interface RouteShape<Q extends z.ZodType> {
  /** Path below /v2, with its trailing slash as in the contract (for example "/events/"). */
  path: string;
  summary: string;
  description?: string;
  /** OpenAPI tag. */
  tag: string;
  /** Query parameters. Aliases (oddIDs, includeOpposingOddIDs) are declared here and merged by the route. */
  query: Q;
  /** The contract object served (from the contracts package); absent for routes that never answer 200. */
  item?: z.ZodType;
  /** list (default): data is an array of items; object: data is one item; none: no success body. */
  data?: "list" | "object" | "none";
  /** Statuses the contract lists for this route besides KEYED_STATUSES. A status not listed is never answered. */
  errors: number[];
  /**
   * true where the contract lists no 400 (/sports/): malformed parameters are ignored and the
   * schema's defaults used. Otherwise a malformed parameter is a 400 naming it.
   */
  lenientParameters?: boolean;
}

/**
 * A route behind the API key: the key is checked and the call counted before `load`, which also
 * gets what this call's admission returned: the key's counters and revision (absent when the rate
 * limiter was not reached).
 */
export interface KeyedRoute<Q extends z.ZodType = z.ZodType> extends RouteShape<Q> {
  keyed?: true;
  /**
   * `heldTag`: the tag of the page the caller holds for these very parameters and plan. A route whose
   * source tags pages passes it on, and answers `unchanged` when the source says the page is the same.
   * `heldItemTags`: the tags of that page's items the caller holds; a route whose source tags items passes them on,
   * and those items come back empty.
   */
  load(
    params: z.output<Q>,
    grant: KeyGrant,
    admitted?: Admitted,
    heldTag?: string,
    heldItemTags?: readonly string[],
  ): Promise<RouteAnswer>;
}

/** A route anyone may call (/health). */
export interface OpenRoute<Q extends z.ZodType = z.ZodType> extends RouteShape<Q> {
  keyed: false;
  load(params: z.output<Q>): Promise<RouteAnswer>;
}

/**
 * One public GET route. Routes are thin: they turn validated parameters into a gateway call
 * and return what the service rendered. Every route, data or not, is mounted the same way.
 */
export type RouteDefinition<Q extends z.ZodType = z.ZodType> = KeyedRoute<Q> | OpenRoute<Q>;

/** What bounds the loads of the data routes in one edge, v2's and v1's together (`readBounds`). */
export interface ReadBounds {
  /** Longest a heavy page may take, its wait for a slot included (DOWNSTREAM_DEADLINE_MS): see HeavyPages. */
  heavyPageMaxMs: number;
  /** Pages of many events with all their odds, v2's and v1's: one events service builds them all. */
  eventPages: HeavyPages;
}

export function defineRoute<Q extends z.ZodType>(definition: KeyedRoute<Q>): KeyedRoute<Q> {
  return definition;
}

export function defineOpenRoute<Q extends z.ZodType>(definition: OpenRoute<Q>): OpenRoute<Q> {
  return definition;
}

/** Converts a gRPC JsonPage to a RoutePage (empty cursor and notice mean none). */
export function fromJsonPage(page: common.JsonPage): RoutePage {
  return {
    items: page.items,
    nextCursor: page.nextCursor === "" ? null : page.nextCursor,
    ...(page.notice ? { notice: page.notice } : {}),
    ...(page.tag ? { tag: page.tag } : {}),
    ...(page.unchanged ? { unchanged: true as const } : {}),
    ...(page.itemTags.length > 0 ? { itemTags: page.itemTags } : {}),
  };
}
