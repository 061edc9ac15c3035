import {
  credentials,
  InterceptingCall,
  Metadata,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type ClientUnaryCall,
  type Interceptor,
  type ServiceError,
  type ChannelCredentials,
} from "@grpc/grpc-js";
import { FLOW_CONTROL_WINDOW_BYTES } from "./flow-control";

/** Adds a deadline to every call that does not carry one, so no client call can wait forever. */
export function deadlineInterceptor(defaultDeadlineMs: number): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall({ ...options, deadline: options.deadline ?? Date.now() + defaultDeadlineMs }));
}

/** Reconnect backoff of every client channel, from the first retry to its cap. */
const RECONNECT_BACKOFF_MS = { initial: 250, max: 2_000 } as const;

/**
 * Client keepalive. A peer that vanished without closing its connections (a pod killed with its address
 * now dropping packets) is found dead within `time + timeout` and the channel reconnects; until then every
 * call on that connection would wait out its deadline. grpc-js's server does not police client pings.
 */
const KEEPALIVE_MS = { time: 10_000, timeout: 5_000 } as const;

/**
 * Retries of a call that failed UNAVAILABLE (its connection dropped, no server behind the address for a
 * moment, a stopping server's GOAWAY): up to 5 attempts (grpc-js's cap) with random backoffs of at most
 * 0.2, 0.4, 0.8 and 1.6 s, about the time a replaced pod's address takes to lead to its successor. The
 * call's deadline still bounds all attempts together.
 */
const UNAVAILABLE_RETRY_POLICY = {
  maxAttempts: 5,
  initialBackoff: "0.2s",
  maxBackoff: "2s",
  backoffMultiplier: 2,
  retryableStatusCodes: ["UNAVAILABLE"],
} as const;

/** A ts-proto grpc-js client class: it names its service, so a retry policy cannot name another by mistake. */
type ClientConstructor<C extends Client> = {
  new (address: string, channelCredentials: ChannelCredentials, options?: Partial<ChannelOptions>): C;
  readonly serviceName: string;
};

/**
 * Creates a typed ts-proto client once per process. Every call gets a default deadline. With
 * `retryUnavailable`, a call failing UNAVAILABLE is retried by grpc-js's own retry policy: only for
 * clients whose every method is safe to repeat (reads, and writes made idempotent by an id).
 */
export function createGrpcClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  options: {
    defaultDeadlineMs: number;
    retryUnavailable?: boolean;
    /**
     * Its own connections rather than those shared by every client of the same address: calls that
     * answer megabytes get them, so a small call's answer never waits behind theirs on one connection.
     */
    ownConnections?: boolean;
    /**
     * How long a keepalive ping may go unanswered before the connection is dropped (5 s by default). The
     * timer runs on this process's event loop and fires before the answer is read once the loop is free
     * again: a process that holds its loop longer (a bulk writer encoding a cycle's multi-megabyte calls)
     * drops its own healthy connection and fails every call in flight on it, so such a client allows more.
     */
    keepaliveTimeoutMs?: number;
  },
): C {
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: options.retryUnavailable
      ? [{ name: [{ service: Ctor.serviceName }], retryPolicy: UNAVAILABLE_RETRY_POLICY }]
      : [],
  };
  return new Ctor(address, credentials.createInsecure(), {
    interceptors: [deadlineInterceptor(options.defaultDeadlineMs)],
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
    "grpc-node.flow_control_window": FLOW_CONTROL_WINDOW_BYTES,
    ...(options.ownConnections ? { "grpc.use_local_subchannel_pool": 1 } : {}),
    "grpc.keepalive_time_ms": KEEPALIVE_MS.time,
    "grpc.keepalive_timeout_ms": options.keepaliveTimeoutMs ?? KEEPALIVE_MS.timeout,
    // An idle channel's dead connection is found too, before a call is sent on it.
    "grpc.keepalive_permit_without_calls": 1,
    // A restarted or replaced server (a crashed process, a rolled pod) is found again within seconds: grpc-js's
    // default reconnect backoff grows to 2 minutes, during which every call fails UNAVAILABLE.
    "grpc.initial_reconnect_backoff_ms": RECONNECT_BACKOFF_MS.initial,
    "grpc.max_reconnect_backoff_ms": RECONNECT_BACKOFF_MS.max,
  });
}

/** Resolves once the client's channel is connected; rejects at the deadline (the channel keeps trying). */
export function channelReady(client: Client, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve())),
  );
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a unary method of a ts-proto grpc-js client and resolves with its response. */
export function callUnary<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: Partial<CallOptions> = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, request, new Metadata(), options, (err, response) => (err ? reject(err) : resolve(response)));
  });
}
