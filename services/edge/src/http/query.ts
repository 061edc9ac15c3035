import type { z } from "zod";
import { invalidParams } from "./errors";
import { refuseUnreadableParameters } from "./query-shape";

/** Koa's parsed query as one string per parameter: a repeated parameter becomes one comma-separated list. */
export function flattenQuery(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(",") : value;
  }
  return flat;
}

/** Validates a request's query with the route's schema; failures are 400 naming the parameter. */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string | string[] | undefined>,
): z.output<S> {
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
export function lenientQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string | string[] | undefined>,
): z.output<S> {
  const flat = flattenQuery(query);
  const whole = schema.safeParse(flat);
  if (whole.success) return whole.data;
  const rejected = new Set(whole.error.issues.map((issue) => String(issue.path[0] ?? "")));
  const kept = Object.fromEntries(Object.entries(flat).filter(([name]) => !rejected.has(name)));
  const partial = schema.safeParse(kept);
  return partial.success ? partial.data : (schema.parse({}) as z.output<S>);
}
