import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Logger } from "@odds/platform";
import { InvalidArgumentError, redactApiKey } from "@odds/platform";
import type { Context, Middleware } from "koa";
import { writeFailure } from "./envelope";

/** A failure already expressed in the contract's terms: HTTP status, `error` and optional `message`. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ? `${error}: ${detail}` : error);
  }
}

export const invalidParams = (message: string) => new ApiError(400, "Invalid params", message);
export const invalidApiKey = (detail?: string) => new ApiError(401, "Invalid API key", detail);
export const inactiveApiKey = () => new ApiError(403, "Inactive API key");
export const notFound = () => new ApiError(404, "Not found");
export const methodNotAllowed = (allow: string) => new ApiError(405, "Method not allowed", undefined, { Allow: allow });
export const gone = () => new ApiError(410, "Gone", "API v2 has been retired; use v1");
/** 426: a plain request to a WebSocket route; the answer names the protocol to switch to (RFC 9110, 15.5.22). */
export const upgradeRequired = (detail: string) =>
  new ApiError(426, "Upgrade required", detail, { Upgrade: "websocket" });
/** 429: `window` is the exhausted window, `retryAfterSeconds` whole seconds until it resets. */
export const rateLimitExceeded = (window: string, retryAfterSeconds: number) =>
  new ApiError(429, "Rate limit exceeded", `${window} window exhausted`, { "Retry-After": String(retryAfterSeconds) });
export const queryFailed = () => new ApiError(500, "Query failed");
export const notImplemented = () => new ApiError(501, "Not Implemented");
export const serviceUnavailable = (message?: string) => new ApiError(503, "Service unavailable", message);

/** Statuses every keyed route may answer besides the ones it lists. */
export const KEYED_STATUSES: readonly number[] = [401, 403, 429];

/**
 * The route state the error boundary reads: which extra statuses the contract lists for
 * the matched route. A status a route does not list is never answered by it.
 */
export interface RouteErrorScope {
  errors: number[];
}

/** Records the statuses a route lists, so the error boundary answers nothing else. */
export function routeScope(errors: number[]): Middleware {
  return async (ctx, next) => {
    (ctx.state as { routeErrors?: RouteErrorScope }).routeErrors = { errors };
    await next();
  };
}

function grpcCode(err: unknown): GrpcStatus | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  const metadata = (err as { metadata?: unknown }).metadata;
  return typeof code === "number" && metadata !== undefined ? (code as GrpcStatus) : undefined;
}

function grpcDetails(err: unknown): string | undefined {
  const details = (err as { details?: unknown }).details;
  return typeof details === "string" && details.length > 0 ? details : undefined;
}

/** gRPC status → the contract's error, honouring the statuses the route lists. */
export function fromGrpcError(err: unknown, scope: RouteErrorScope | undefined): ApiError | undefined {
  const code = grpcCode(err);
  if (code === undefined) return undefined;
  const listed = new Set([...KEYED_STATUSES, ...(scope?.errors ?? [])]);
  const mapped =
    code === GrpcStatus.INVALID_ARGUMENT
      ? invalidParams(grpcDetails(err) ?? "invalid parameter")
      : code === GrpcStatus.NOT_FOUND
        ? notFound()
        : code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.DEADLINE_EXCEEDED
          ? serviceUnavailable()
          : queryFailed();
  return listed.has(mapped.status) ? mapped : queryFailed();
}

/** Writes a failure in one contract's form (v2's envelope, v1's problem+json). */
export type FailureWriter = (ctx: Context, error: ApiError) => void;

const writeV2Failure: FailureWriter = (ctx, error) => writeFailure(ctx, error.status, error.error, error.detail);

/**
 * The ONE error boundary, first in the chain: every failure below it becomes an ApiError, written
 * in the form of the contract the request addressed (`writerFor`; v2's envelope when it names none).
 * gRPC statuses map here and nowhere else.
 */
export function errorBoundary(
  logger: Logger,
  writerFor: (ctx: Context) => FailureWriter | undefined = () => undefined,
): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const scope = ctx.state.routeErrors as RouteErrorScope | undefined;
      const apiError =
        err instanceof ApiError
          ? err
          : err instanceof InvalidArgumentError
            ? invalidParams(err.message)
            : (fromGrpcError(err, scope) ?? queryFailed());
      if (!(err instanceof ApiError) && !(err instanceof InvalidArgumentError)) {
        logger.error(
          { err: { message: (err as Error).message, code: grpcCode(err) }, path: redactApiKey(ctx.url) },
          "request failed",
        );
      }
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
      (writerFor(ctx) ?? writeV2Failure)(ctx, apiError);
    }
  };
}
