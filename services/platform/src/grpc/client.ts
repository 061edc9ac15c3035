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
