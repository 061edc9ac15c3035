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

/** Adds a deadline to every call that does not carry one, so no client call can wait forever. */
export function deadlineInterceptor(defaultDeadlineMs: number): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall({ ...options, deadline: options.deadline ?? Date.now() + defaultDeadlineMs }));
}

/** Reconnect backoff of every client channel, from the first retry to its cap. */
const RECONNECT_BACKOFF_MS = { initial: 250, max: 2_000 } as const;

type ClientConstructor<C extends Client> = new (
  address: string,
  channelCredentials: ChannelCredentials,
  options?: Partial<ChannelOptions>,
) => C;

/**
 * Creates a typed ts-proto client once per process. Every call gets a default deadline,
 * and transient UNAVAILABLE failures are retried by grpc-js's own retry policy.
 */
export function createGrpcClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  options: { serviceName: string; defaultDeadlineMs: number; retryUnavailable?: boolean },
): C {
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: options.retryUnavailable
      ? [
          {
            name: [{ service: options.serviceName }],
            retryPolicy: {
              maxAttempts: 4,
              initialBackoff: "0.1s",
              maxBackoff: "2s",
              backoffMultiplier: 2,
              retryableStatusCodes: ["UNAVAILABLE"],
            },
          },
        ]
      : [],
  };
  return new Ctor(address, credentials.createInsecure(), {
    interceptors: [deadlineInterceptor(options.defaultDeadlineMs)],
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
    "grpc.keepalive_time_ms": 30_000,
    // A restarted or replaced server (a crashed process, a rolled pod) is found again within seconds: grpc-js's
    // default reconnect backoff grows to 2 minutes, during which every call fails UNAVAILABLE.
    "grpc.initial_reconnect_backoff_ms": RECONNECT_BACKOFF_MS.initial,
    "grpc.max_reconnect_backoff_ms": RECONNECT_BACKOFF_MS.max,
  });
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
