import type { common } from "@odds/proto";
import type { z } from "zod";

export type Caller = common.Caller;

/** What a route hands to the envelope: contract objects already rendered as JSON. */
export interface RoutePage {
  items: Uint8Array[];
  nextCursor: string | null;
  notice?: string;
}

/**
 * One public GET route. Its query schema is the single declaration used to validate
 * requests, to generate the OpenAPI document and by the tests. Routes are thin: they
 * turn validated parameters into a gateway call and return what the service rendered.
 */
export interface RouteDefinition<Q extends z.ZodType = z.ZodType> {
  /** Path below /v2, with its trailing slash as in the contract (for example "/events/"). */
  path: string;
  summary: string;
  description?: string;
  /** OpenAPI tag. */
  tag: string;
  /** Query parameters. Aliases (oddIDs, includeOpposingOddIDs) are declared here and merged by `normalize`. */
  query: Q;
  /** Contract item shape, for the OpenAPI document only. */
  item: z.ZodType;
  /** Extra error statuses the contract lists for this route (besides 401, 403, 429). */
  errors: number[];
  load(params: z.output<Q>, caller: Caller): Promise<RoutePage>;
}

export function defineRoute<Q extends z.ZodType>(definition: RouteDefinition<Q>): RouteDefinition<Q> {
  return definition;
}

/** Converts a gRPC JsonPage to a RoutePage (empty cursor and notice mean none). */
export function fromJsonPage(page: common.JsonPage): RoutePage {
  return {
    items: page.items,
    nextCursor: page.nextCursor === "" ? null : page.nextCursor,
    ...(page.notice ? { notice: page.notice } : {}),
  };
}
