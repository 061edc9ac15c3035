// A new edge's warm-up against a real gRPC server and the test Redis, and against addresses nothing listens on.
import { connectivityState } from "@grpc/grpc-js";
import { freePort, testRedisUrl } from "@odds/local";
import { createGrpcClient, createLogger, startGrpcServer, type RunningGrpcServer } from "@odds/platform";
import { usage } from "@odds/proto";
import { createHash } from "node:crypto";
import { createClient } from "redis";
import { RATE_LIMIT_SCRIPT, RateLimiter, type RedisClient } from "../src/ratelimit/rate-limiter";
import { warmUp } from "../src/system/warm-up";
import { capturingLogger } from "./fixtures";

const SCRIPT_SHA = createHash("sha1").update(RATE_LIMIT_SCRIPT).digest("hex");
const silent = createLogger("edge-test", "silent");

let server: RunningGrpcServer;
const closers: Array<() => Promise<unknown> | void> = [];

beforeAll(async () => {
  // No service registered: a channel connects to any gRPC server, which is all the warm-up waits for.
  server = await startGrpcServer({ host: "127.0.0.1", port: 0, logger: silent, services: [] });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await server.shutdown(1_000);
});

function usageClient(address: string): usage.UsageServiceClient {
  const client = createGrpcClient(usage.UsageServiceClient, address, { defaultDeadlineMs: 2_000 });
  closers.push(() => client.close());
  return client;
}

function redisAt(url: string): RedisClient {
  const redis = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 500, reconnectStrategy: () => 100 },
  });
  redis.on("error", () => undefined);
  redis.connect().catch(() => undefined);
  closers.push(() => redis.destroy());
  return redis;
}

describe("edge warm-up before listening", () => {
  it("connects every channel and Redis and loads the rate-limit script", async () => {
    const redis = redisAt(testRedisUrl());
    const limiter = new RateLimiter(redis, { failMode: "open", logger: silent });
    const client = usageClient(`127.0.0.1:${server.port}`);
    // As a new Redis (or one restarted) holds it: no script loaded.
    const admin = createClient({ url: testRedisUrl() });
    await admin.connect();
    closers.push(() => admin.quit());
    await admin.scriptFlush();
    expect(client.getChannel().getConnectivityState(false)).not.toBe(connectivityState.READY);

    const cold = await warmUp({ channels: { usage: client }, redis, limiter }, silent);

    expect(cold).toEqual([]);
    expect(client.getChannel().getConnectivityState(false)).toBe(connectivityState.READY);
    expect(redis.isReady).toBe(true);
    expect(await admin.scriptExists(SCRIPT_SHA)).toEqual([1]);
  });

  it("gives up on what it cannot reach within its bound, says which in the log, and does not hang", async () => {
    const [grpcPort, redisPort] = [await freePort(), await freePort()];
    const redis = redisAt(`redis://127.0.0.1:${redisPort}`);
    const limiter = new RateLimiter(redis, { failMode: "open", logger: silent });
    const { logger, lines } = capturingLogger();

    const cold = await warmUp(
      { channels: { usage: usageClient(`127.0.0.1:${grpcPort}`) }, redis, limiter },
      logger,
      500,
    );

    expect(cold.sort()).toEqual(["redis", "usage"]);
    expect(lines.join("\n")).toMatch(/edge listening before all of its downstream was reachable/);
    expect(lines.join("\n")).toMatch(/"cold":\["usage","redis"\]/);
  });
});
