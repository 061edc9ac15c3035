import { redactApiKey } from "@odds/platform";
import type { Context } from "koa";
import type { ApiError } from "../http/errors";

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** What a caller is told when the failure carries no detail of its own. */
const DEFAULT_DETAIL: Record<number, string> = {
  400: "the request's parameters are not valid",
  401: "send a valid key as Authorization: Bearer <API_KEY>",
  403: "the key is deactivated, or its plan does not include this",
  404: "no such resource, or not visible to the key's plan",
  405: "only GET and HEAD are served",
  429: "a rate-limit window of the key's plan is exhausted",
  500: "the query failed; retry later",
  501: "not implemented",
  503: "a service behind the API is unavailable; retry later",
};

/** The problem type: a stable URI per title ("Invalid params" -> urn:odds:problem:invalid-params). */
export function problemType(title: string): string {
  return `urn:odds:problem:${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")}`;
}

/** v1's failure body (RFC 9457): the same ApiError v2 writes as its envelope. */
export function writeProblem(ctx: Context, error: ApiError): void {
  ctx.status = error.status;
  ctx.type = PROBLEM_MEDIA_TYPE;
  ctx.body = JSON.stringify({
    type: problemType(error.error),
    title: error.error,
    status: error.status,
    detail: error.detail ?? DEFAULT_DETAIL[error.status] ?? error.error,
    // the request it answers, without a key sent in the query (refused in v1, but never echoed)
    instance: redactApiKey(ctx.originalUrl),
  });
}
