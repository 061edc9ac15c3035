import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
} from "@grpc/grpc-js";
import { type EventEmitter, on, once } from "node:events";
import { HealthImplementation } from "grpc-health-check";
import type { Logger } from "pino";
import { toServiceError, DomainError } from "../errors";
import { CallTurns } from "./call-turns";
import { widenReceiveWindows } from "./flow-control";

export interface GrpcServiceBinding {
  /** Fully qualified service name, used as the health-check service key. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  readonly port: number;
  readonly health: HealthImplementation;
  /** Stops accepting calls, drains in-flight ones for up to `timeoutMs`, then forces the rest closed. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** Starts a gRPC server with the standard grpc.health.v1 service beside the given services. */
export async function startGrpcServer(options: {
  host?: string;
  port: number;
  services: GrpcServiceBinding[];
  logger: Logger;
}): Promise<RunningGrpcServer> {
  const server = new Server({ "grpc.max_receive_message_length": 64 * 1024 * 1024 });
  const statusMap: Record<string, "SERVING"> = { "": "SERVING" };
  for (const service of options.services) {
    server.addService(service.definition, service.implementation);
    statusMap[service.name] = "SERVING";
  }
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);

  const address = `${options.host ?? "0.0.0.0"}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  if (!widenReceiveWindows(server)) {
    options.logger.warn("gRPC server's receive windows left at HTTP/2's 64 KB: grpc-js's HTTP/2 servers not found");
  }
  options.logger.info({ port }, "gRPC server listening");

  return {
    port,
    health,
    async shutdown(timeoutMs) {
      for (const name of Object.keys(statusMap)) health.setStatus(name, "NOT_SERVING");
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/**
 * A method's server definition with its request read by `decode` instead: the same wire message
 * read another way, as a large write call whose items the handler decodes one at a time, each at
 * its turn (a `repeated bytes` field in place of the embedded messages: both are length-delimited).
 */
export function withRequestDecoder<Method extends { requestDeserialize: (bytes: Buffer) => unknown }, Request>(
  method: Method,
  decode: (bytes: Buffer) => Request,
): Omit<Method, "requestDeserialize"> & { requestDeserialize: (bytes: Buffer) => Request } {
  return { ...method, requestDeserialize: decode };
}

/** The process's one event loop, shared by every service it serves: see CallTurns. */
const callTurns = new CallTurns();

/**
 * Adapts a promise-returning domain call to a grpc-js unary handler: resolves to the
 * response, and sends every failure as a typed status (never a plain Error, which
 * would arrive as UNKNOWN). Each call starts two event-loop turns after the one before
 * it, so calls that arrived together are answered one by one as each is made (CallTurns).
 */
export function unaryHandler<Req, Res>(
  logger: Logger,
  handle: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    callTurns
      .start(() => handle(call.request, call))
      .then(
        (response) => callback(null, response),
        (err: unknown) => {
          if (!(err instanceof DomainError)) logger.error({ err, path: call.getPath() }, "unhandled error in RPC");
          return callback(toServiceError(err));
        },
      );
  };
}

/**
 * Server-streaming counterpart of unaryHandler: writes every message `handle` yields, then ends the
 * call; a failure (before or between messages) ends it with the error's gRPC status. `cancelled` is
 * aborted when the caller cancels or goes away, so a stream waiting for its next message stops waiting.
 */
export function serverStreamingHandler<Req, Res>(
  logger: Logger,
  handle: (request: Req, call: ServerWritableStream<Req, Res>, cancelled: AbortSignal) => AsyncIterable<Res>,
): (call: ServerWritableStream<Req, Res>) => void {
  return (call) => {
    const cancelled = new AbortController();
    call.once("cancelled", () => cancelled.abort());
    void (async () => {
      try {
        for await (const message of handle(call.request, call, cancelled.signal)) {
          if (call.cancelled) return;
          // A caller gone while its stream is full never drains it: the wait ends with the call.
          if (!call.write(message)) await once(call, "drain", { signal: cancelled.signal });
        }
        call.end();
      } catch (err) {
        if (cancelled.signal.aborted) return;
        if (!(err instanceof DomainError)) logger.error({ err, path: call.getPath() }, "unhandled error in RPC");
        call.emit("error", toServiceError(err));
      }
    })();
  };
}

/**
 * A watch's messages for serverStreamingHandler: `current()` at once, then every `event` argument the
 * emitter sends, in order, until `ended` aborts. The watch listens before it reads the current value,
 * so no change between the two is missed (one at that instant may come twice).
 */
export async function* currentThenChanges<T>(
  emitter: EventEmitter,
  event: string,
  current: () => T,
  ended: AbortSignal,
): AsyncGenerator<T> {
  if (ended.aborted) return;
  const changes = on(emitter, event, { signal: ended });
  try {
    yield current();
    for await (const [value] of changes) yield value as T;
  } catch (err) {
    if (!ended.aborted) throw err;
  }
}
