import { Metadata, status, type ServiceError } from "@grpc/grpc-js";

/**
 * A failure the domain knows how to name. Each carries the gRPC status it travels as,
 * so the edge can map it to the contract's HTTP error in one place.
 */
export abstract class DomainError extends Error {
  abstract readonly code: status;
}

/** A request parameter is malformed or out of range; the message names the parameter. */
export class InvalidArgumentError extends DomainError {
  override name = "InvalidArgumentError";
  readonly code = status.INVALID_ARGUMENT;
  constructor(
    readonly parameter: string,
    detail: string,
  ) {
    super(`${parameter}: ${detail}`);
  }
}

export class NotFoundError extends DomainError {
  override name = "NotFoundError";
  readonly code = status.NOT_FOUND;
}

/** A store this request needs did not answer. */
export class UnavailableError extends DomainError {
  override name = "UnavailableError";
  readonly code = status.UNAVAILABLE;
}

export class PermissionDeniedError extends DomainError {
  override name = "PermissionDeniedError";
  readonly code = status.PERMISSION_DENIED;
}

/** Converts anything thrown by a handler into a ServiceError; unknown errors become INTERNAL, never UNKNOWN. */
export function toServiceError(err: unknown): ServiceError {
  const code = err instanceof DomainError ? err.code : status.INTERNAL;
  const details = err instanceof DomainError ? err.message : "internal error";
  const serviceError = Object.assign(new Error(details), {
    code,
    details,
    metadata: new Metadata(),
  });
  return serviceError;
}

/** True for a gRPC client error with the given status code. */
export function hasGrpcStatus(err: unknown, code: status): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}
