// The physical limit beside each case: a bare node:http server answering a case's exact
// response bytes from memory. Bodies come from files; GET /<index> answers body <index>.
//
// Given the stack's Redis (argv[3]), GET /admitted/<index> answers the same bytes after a Redis call
// of its own: the edge's rate-limit script admitting the one request over a key's five windows, with
// the entities of the key's previous answer carried. No framework, no key lookup, no cache: the floor
// of any edge that makes one Redis call per request to count it, as the contract's rate limits require
// (the edge itself shares one call among a key's requests read in the same turn: RateLimiter).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { RATE_LIMIT_SCRIPT, scriptCall } from "@odds/edge/dist/ratelimit/rate-limiter";
import { keyRevisionKey, type RedisClient } from "@odds/platform";
import { objects } from "@odds/proto";
import { createClient } from "redis";

export interface BareBody {
  file: string;
  headers: Record<string, string>;
}

const ADMITTED = "/admitted/";

/** The path of body `index` behind the Redis call. */
export function admittedPath(index: number): string {
  return `${ADMITTED}${index}`;
}

/** The Redis key of one window the admitted path counts in. */
export function admittedWindowKey(prefix: string, window: string): string {
  return `${prefix}:{key}:${window}`;
}

async function admission(redis: RedisClient, prefix: string): Promise<() => Promise<unknown>> {
  const sha = await redis.scriptLoad(RATE_LIMIT_SCRIPT);
  // The windows end a day after the start: the keys (a prefix of the bench's own) outlive the run.
  const endMs = Date.now() + 86_400_000;
  const keys = objects.RATE_WINDOWS.map((window) => admittedWindowKey(prefix, window));
  // Every window admitted, with limits never reached (finite, so every comparison runs), then one entity
  // carried into each window, and the key's revision read (its hash tag is the windows'), as the edge's
  // call does. Built once: the floor does no work of its own per request.
  const call = scriptCall(keyRevisionKey("key"), [
    {
      admitted: keys.map((key) => ({ key, maxRequests: 1e12, maxEntities: 1e12, endMs })),
      carried: keys.map((key) => ({ key, entities: 1, endMs })),
    },
  ]);
  return () => redis.evalSha(sha, call);
}

function quitAndThrow(redis: RedisClient): (err: unknown) => Promise<never> {
  return async (err) => {
    await redis.quit().catch(() => undefined);
    throw err;
  };
}

/** Serves the bodies listed in `bodyIndex` on a free port; with `redisUrl`, the admitted path too. */
export async function startBareServer(
  bodyIndex: string,
  redisUrl: string | undefined,
  prefix = "bench-admitted",
): Promise<{ port: number; close: () => Promise<void> }> {
  const bodies = (JSON.parse(readFileSync(bodyIndex, "utf8")) as BareBody[]).map((body) => ({
    bytes: readFileSync(body.file),
    headers: body.headers,
  }));
  const redis = redisUrl ? createClient({ url: redisUrl, disableOfflineQueue: true }) : undefined;
  await redis?.connect();
  // A client left connected would outlive a failed start (and crash its process when Redis goes away).
  const admit = redis ? await admission(redis, prefix).catch(quitAndThrow(redis)) : undefined;
  const server = createServer((request, response) => {
    const url = request.url ?? "/";
    const admitted = url.startsWith(ADMITTED);
    const body = bodies[Number(url.slice(admitted ? ADMITTED.length : 1))];
    if (!body || (admitted && !admit)) {
      response.writeHead(404).end();
      return;
    }
    const answer = () => {
      response.writeHead(200, { ...body.headers, "content-length": body.bytes.length });
      response.end(body.bytes);
    };
    if (admit && admitted) admit().then(answer, () => response.writeHead(503).end());
    else answer();
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await redis?.quit();
    },
  };
}

if (require.main === module) {
  void startBareServer(process.argv[2] ?? "", process.argv[3]).then(({ port, close }) => {
    process.stdout.write(`${port}\n`);
    process.on("SIGTERM", () => void close().then(() => process.exit(0)));
  });
}
