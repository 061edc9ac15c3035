import { LRUCache } from "lru-cache";
import stableStringify from "safe-stable-stringify";
import type { z } from "zod";
import { invalidParams } from "./errors";
import { refuseUnreadableParameters } from "./query-shape";

/** A query as Koa parses it: a repeated parameter is an array. */
type RawQuery = Record<string, string | string[] | undefined>;

/** Koa's parsed query as one string per parameter: a repeated parameter becomes one comma-separated list. */
export function flattenQuery(query: RawQuery): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(",") : value;
  }
  return flat;
}

/** Validates a request's query with the route's schema; failures are 400 naming the parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, query: RawQuery): z.output<S> {
  refuseUnreadableParameters(query);
  const result = schema.safeParse(flattenQuery(query));
  if (result.success) return result.data;
  throw invalidParams(result.error.issues.map(issueDetail).join("; "));
}

/** One failure of a query's validation, naming the parameter it is about (each one, for parameters a route lacks). */
function issueDetail(issue: z.ZodError["issues"][number]): string {
  if (issue.code === "unrecognized_keys")
    return issue.keys.map((key) => `${key}: not a parameter of this route`).join("; ");
  return issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/** For routes that never answer 400: the parameters that validate, the schema's defaults for the rest. */
export function lenientQuery<S extends z.ZodType>(schema: S, query: RawQuery): z.output<S> {
  const flat = flattenQuery(query);
  const whole = schema.safeParse(flat);
  if (whole.success) return whole.data;
  const rejected = new Set(whole.error.issues.map((issue) => String(issue.path[0] ?? "")));
  const kept = Object.fromEntries(Object.entries(flat).filter(([name]) => !rejected.has(name)));
  const partial = schema.safeParse(kept);
  return partial.success ? partial.data : (schema.parse({}) as z.output<S>);
}

/**
 * The value of one parameter of a raw query string, as `URLSearchParams.get` gives it; the string is parsed only when
 * it could name the parameter. For a name of plain characters (no `%`, `+`, `&` or `=`): a parameter's name decodes to
 * it only when spelled literally or with percent escapes, so a query holding neither cannot. Spares a request the
 * parse of its whole query to look for a parameter it seldom holds (a key sent in the query; on a query of 50 event
 * IDs, about 8 µs).
 */
export function queryParameter(querystring: string, name: string): string | null {
  if (!querystring.includes(name) && !querystring.includes("%")) return null;
  return new URLSearchParams(querystring).get(name);
}

/** A query validated once, and the forms of it that name a request (for cache keys and links). */
export interface ParsedQuery<P> {
  /** The validated parameters, frozen: every request with the same query string shares them. */
  readonly params: P;
  /** `canonicalQuery(params)`, made on first use. */
  readonly canonical: string;
  /**
   * The query string itself with its parameters in the order of their names (`URLSearchParams.sort`: stable, so a
   * repeated parameter keeps its order), serialised as `URLSearchParams` does: how v1 names a request in its links,
   * and so in its answers' keys. Made on first use.
   */
  readonly sorted: string;
}

/** Validated parameters stably serialised: parameter order, aliases' spelling and unknown names do not show. */
export function canonicalQuery(params: unknown): string {
  return stableStringify(params) ?? "";
}

/**
 * Characters of query strings one route keeps parsed: a few hundred queries of 50 event IDs, thousands of short
 * ones. The popular polls, repeated every few seconds, stay; a scan of different queries only churns the oldest.
 */
const PARSED_QUERIES_MAX_CHARS = 256 * 1024;

/**
 * One route's queries, validated once per query string. The answer cache spares a hot request every cost that grows
 * with its page; this spares it the validation and serialisation that grow with its query (about 30 µs of the edge's
 * CPU for 50 event IDs: docs/performance.md, "Queries parsed once"). Validation is a pure function of the query string
 * and the route's schema, so a kept result is the one parsing would give; a query that fails is never kept, and
 * fails again on each request with the same 400.
 */
export class RouteQueries<S extends z.ZodType> {
  private readonly kept = new LRUCache<string, ParsedQuery<z.output<S>>>({
    maxSize: PARSED_QUERIES_MAX_CHARS,
    // The parameters and the one form made of them (v2 the canonical, v1 the sorted) are each about as long as the
    // query string.
    sizeCalculation: (_parsed, key) => 3 * key.length + 64,
  });

  constructor(
    private readonly schema: S,
    /** true for routes that never answer 400 (see `lenientQuery`). */
    private readonly lenient = false,
  ) {}

  /**
   * The query of `querystring`, which `read` parses into Koa's form when it was not kept. A route that reads
   * parameters from its path too (v1's event ID) names the `path`: its queries are kept per path and query string.
   */
  of(querystring: string, read: () => RawQuery, path?: string): ParsedQuery<z.output<S>> {
    const key = path === undefined ? querystring : `${path}?${querystring}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const raw = read();
    const parsed = parsedQuery(
      this.lenient ? lenientQuery(this.schema, raw) : parseQuery(this.schema, raw),
      querystring,
    );
    this.kept.set(key, parsed);
    return parsed;
  }
}

function parsedQuery<P>(params: P, querystring: string): ParsedQuery<P> {
  deepFreeze(params);
  let canonical: string | undefined;
  let sorted: string | undefined;
  return {
    params,
    get canonical() {
      canonical ??= canonicalQuery(params);
      return canonical;
    },
    get sorted() {
      if (sorted === undefined) {
        const query = new URLSearchParams(querystring);
        query.sort();
        sorted = query.toString();
      }
      return sorted;
    },
  };
}

/** Validated parameters are plain objects, arrays and scalars. */
function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}
