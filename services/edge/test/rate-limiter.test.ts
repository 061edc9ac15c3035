// Fixed instants are in the future: counters expire at their window end, so a past instant would vanish at once.
import { randomBytes } from "node:crypto";
import { freePort, testRedisUrl, type RedisServer } from "@odds/local";
import { createLogger, KEY_REVISION_TTL_MS, keyRevisionKey, KeyRevisions } from "@odds/platform";
import { createClient } from "redis";
import {
  RateLimiter,
  RateLimiterUnavailableError,
  type Admission,
  type RedisClient,
  type WindowQuota,
} from "../src/ratelimit/rate-limiter";
import { startOwnRedis } from "./fixtures";

const logger = createLogger("edge-test", "silent");
let redis: RedisClient;
let limiter: RateLimiter;

const quota = (window: WindowQuota["window"], maxRequests: number | null, maxEntities: number | null = null) => ({
  window,
  maxRequests,
  maxEntities,
});
const unlimited = (): WindowQuota[] => [
  quota("per-second", null),
  quota("per-minute", null),
  quota("per-hour", null),
  quota("per-day", null),
  quota("per-month", null),
];
const freshKey = () => randomBytes(8).toString("hex");
const PATIENT = { timeoutMs: 60_000, breakAfterFailures: 1_000, probeAfterMs: 100 };

beforeAll(async () => {
  redis = createClient({ url: testRedisUrl(), disableOfflineQueue: true });
  await redis.connect();
  // These tests prove counting, not deadlines: a patient deadline keeps them exact on a loaded machine.
  limiter = new RateLimiter(redis, { failMode: "open", logger, limits: PATIENT });
});

afterAll(async () => {
  await redis.quit();
});

describe("RateLimiter against Redis", () => {
  it("admits up to max-requests in a window, then refuses with the seconds until that window resets", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 10, 15, 30, 400);
    const quotas = [quota("per-minute", 3), quota("per-day", 100)];
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await limiter.admit(keyID, quotas, now));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[2]?.headline).toEqual({
      window: "per-minute",
      limit: 3,
      remaining: 0,
      resetSeconds: 30,
      resetAtMs: Date.UTC(2030, 10, 21, 10, 16),
    });
    expect(decisions[3]?.headline).toEqual({
      window: "per-minute",
      limit: 3,
      remaining: 0,
      resetSeconds: 30,
      resetAtMs: Date.UTC(2030, 10, 21, 10, 16),
    });
  });

  it("when several windows are spent, Retry-After is that of the one resetting last (a retry then passes)", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 10, 15, 30, 400);
    const quotas = [quota("per-second", 2), quota("per-minute", 2)];
    await limiter.admit(keyID, quotas, now);
    await limiter.admit(keyID, quotas, now);
    const refused = await limiter.admit(keyID, quotas, now);
    expect(refused.headline).toEqual({
      window: "per-minute",
      limit: 2,
      remaining: 0,
      resetSeconds: 30,
      resetAtMs: Date.UTC(2030, 10, 21, 10, 16),
    });
    expect((await limiter.admit(keyID, quotas, now + 1_000)).allowed).toBe(false);
    expect((await limiter.admit(keyID, quotas, now + 29_600)).allowed).toBe(true);
  });

  it("starts counting afresh when the next fixed window begins", async () => {
    const keyID = freshKey();
    const quotas = [quota("per-second", 1)];
    const second = Date.UTC(2030, 10, 21, 10, 0, 5);
    expect((await limiter.admit(keyID, quotas, second + 10)).allowed).toBe(true);
    expect((await limiter.admit(keyID, quotas, second + 990)).allowed).toBe(false);
    expect((await limiter.admit(keyID, quotas, second + 1_000)).allowed).toBe(true);
  });

  it("reports the tightest window in the headline: fewest requests remaining", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 10, 0, 0, 0);
    const quotas = [quota("per-second", 10), quota("per-hour", 2), quota("per-month", 1000)];
    const decision = await limiter.admit(keyID, quotas, now);
    expect(decision.headline).toEqual({
      window: "per-hour",
      limit: 2,
      remaining: 1,
      resetSeconds: 3600,
      resetAtMs: Date.UTC(2030, 10, 21, 11),
    });
  });

  it("refuses once a window's entities reached max-entities, without counting the refused request", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 11, 0, 0);
    const quotas = [quota("per-minute", 100, 50)];
    expect((await limiter.admit(keyID, quotas, now)).allowed).toBe(true);
    limiter.recordEntities(keyID, quotas, 49, now);
    expect((await limiter.admit(keyID, quotas, now)).allowed).toBe(true);
    limiter.recordEntities(keyID, quotas, 5, now);
    const refused = await limiter.admit(keyID, quotas, now + 1_000);
    expect(refused).toMatchObject({
      allowed: false,
      headline: {
        window: "per-minute",
        limit: 50,
        remaining: 0,
        resetSeconds: 59,
        resetAtMs: Date.UTC(2030, 10, 21, 11, 1),
      },
    });
    const counts = await limiter.current(keyID, quotas, now);
    expect(counts.get("per-minute")).toEqual({ window: "per-minute", requests: 2, entities: 54 });
  });

  it("returns an admitted request's counters in every window, itself and the carried entities included", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 11, 30, 0);
    const quotas = [quota("per-minute", 100), quota("per-day", null)];
    await limiter.admit(keyID, quotas, now);
    limiter.recordEntities(keyID, quotas, 7, now);
    const admitted = await limiter.admit(keyID, quotas, now + 10);
    expect([...(admitted.counts?.().values() ?? [])]).toEqual([
      { window: "per-minute", requests: 2, entities: 7 },
      { window: "per-day", requests: 2, entities: 7 },
    ]);
    // The same figures Redis holds: /account/usage needs no second call.
    expect(admitted.counts?.()).toEqual(await limiter.current(keyID, quotas, now + 10));
    const refused = await limiter.admit(keyID, [quota("per-minute", 2)], now + 20);
    expect(refused).toMatchObject({ allowed: false });
    expect(refused.counts).toBeUndefined();
  });

  it("returns the key's revision token with every admission, allowed or refused: none written, then each new one", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 11, 45, 0);
    const quotas = [quota("per-minute", 2)];
    expect((await limiter.admit(keyID, quotas, now)).keyRevision).toBe("");
    const revisions = new KeyRevisions(redis, logger);
    await revisions.changed(keyID);
    const first = await redis.get(keyRevisionKey(keyID));
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(await redis.pTTL(keyRevisionKey(keyID))).toBeGreaterThan(KEY_REVISION_TTL_MS - 60_000);
    expect((await limiter.admit(keyID, quotas, now)).keyRevision).toBe(first);
    await revisions.changed(keyID);
    const refused = await limiter.admit(keyID, quotas, now);
    expect(refused.allowed).toBe(false);
    expect(refused.keyRevision).toBe(await redis.get(keyRevisionKey(keyID)));
    expect(refused.keyRevision).not.toBe(first);
    // Another key's revision is its own.
    expect((await limiter.admit(freshKey(), quotas, now)).keyRevision).toBe("");
  });

  it("counts every window of one request atomically, and none when any window refuses", async () => {
    const keyID = freshKey();
    const now = Date.UTC(2030, 10, 21, 12, 0, 0);
    const quotas = [quota("per-second", 1), quota("per-day", 10)];
    await limiter.admit(keyID, quotas, now);
    await limiter.admit(keyID, quotas, now);
    const counts = await limiter.current(keyID, quotas, now);
    expect(counts.get("per-second")?.requests).toBe(1);
    expect(counts.get("per-day")?.requests).toBe(1);
  });

  it("lets exactly 50 of 200 concurrent requests through a limit of 50", async () => {
    const keyID = freshKey();
    const quotas = [quota("per-minute", 50)];
    const now = Date.UTC(2030, 10, 21, 13, 0, 0);
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.admit(keyID, quotas, now)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
  });

  it("never refuses a plan without limits, yet counts its requests and entities in every window", async () => {
    const keyID = freshKey();
    // One instant in the future, so no window ends (or expires) while the test runs on a slow machine.
    const now = Date.UTC(2030, 10, 21, 13, 0, 0);
    for (let i = 0; i < 3; i += 1) {
      const decision = await limiter.admit(keyID, unlimited(), now);
      expect(decision).toMatchObject({ allowed: true, enforced: true, headline: undefined });
      limiter.recordEntities(keyID, unlimited(), 2, now);
    }
    const counts = await limiter.current(keyID, unlimited(), now);
    expect([...counts.keys()].sort()).toEqual(["per-day", "per-hour", "per-minute", "per-month", "per-second"]);
    for (const count of counts.values()) expect(count).toMatchObject({ requests: 3, entities: 6 });
  });

  it("adds a response's entities into the windows of the second it was served in, even when carried later", async () => {
    const keyID = freshKey();
    const quotas = [quota("per-second", 100, 1_000), quota("per-minute", 100, 1_000)];
    const second = Date.UTC(2030, 10, 21, 14, 0, 7);
    await limiter.admit(keyID, quotas, second + 100);
    limiter.recordEntities(keyID, quotas, 30, second + 990);
    // The next request falls in the next second: the 30 entities still belong to the one before.
    await limiter.admit(keyID, quotas, second + 1_010);
    limiter.recordEntities(keyID, quotas, 4, second + 1_020);
    const before = await limiter.current(keyID, quotas, second + 500);
    const after = await limiter.current(keyID, quotas, second + 1_500);
    expect(before.get("per-second")).toEqual({ window: "per-second", requests: 1, entities: 30 });
    expect(after.get("per-second")).toEqual({ window: "per-second", requests: 1, entities: 4 });
    expect(after.get("per-minute")).toEqual({ window: "per-minute", requests: 2, entities: 34 });
  });

  it("counts entities still held when the key sends no further request: flushed in the background and at stop", async () => {
    const keyID = freshKey();
    const quotas = [quota("per-hour", 100, 1_000)];
    const now = Date.UTC(2030, 10, 21, 15, 0, 0);
    const flushing = new RateLimiter(redis, { failMode: "open", logger, limits: PATIENT, entityFlushMs: 50 });
    const hash = `rl:{${keyID}}:per-hour:${now}`;
    flushing.start();
    try {
      await flushing.admit(keyID, quotas, now);
      flushing.recordEntities(keyID, quotas, 7, now);
      let entities: string | null | undefined;
      for (let attempt = 0; attempt < 200 && entities !== "7"; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        entities = await redis.hGet(hash, "e");
      }
      expect(entities).toBe("7");
      flushing.recordEntities(keyID, quotas, 3, now);
    } finally {
      await flushing.stop();
    }
    expect(await redis.hGet(hash, "e")).toBe("10");
    expect(await redis.hGet(hash, "r")).toBe("1");
  });

  it("expires a window's counters when the window ends", async () => {
    const keyID = freshKey();
    const now = Date.now();
    await limiter.admit(keyID, [quota("per-minute", 5)], now);
    const [key] = await redis.keys(`rl:{${keyID}}:*`);
    const ttlMs = await redis.pTTL(key ?? "");
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(61_000);
  });

  it("gives a window made by carried entities alone its expiry, and keeps a window's expiry as requests count", async () => {
    const keyID = freshKey();
    const quotas = [quota("per-minute", 1_000, 1_000)];
    const now = Date.now();
    // Entities served in a minute where the key made no request: the flush creates that minute's hash.
    const servedAt = now + 3 * 60_000;
    limiter.recordEntities(keyID, quotas, 4, servedAt);
    await limiter.flush();
    const carriedOnly = `rl:{${keyID}}:per-minute:${Math.floor(servedAt / 60_000) * 60_000}`;
    expect(await redis.hGetAll(carriedOnly)).toEqual({ e: "4" });
    const carriedTtl = await redis.pTTL(carriedOnly);
    expect(carriedTtl).toBeGreaterThan(2 * 60_000);
    expect(carriedTtl).toBeLessThanOrEqual(4 * 60_000 + 1_000);
    // A window made by a request, then counted again: the expiry set at creation stays.
    await limiter.admit(keyID, quotas, now);
    const counted = `rl:{${keyID}}:per-minute:${Math.floor(now / 60_000) * 60_000}`;
    const first = await redis.pExpireTime(counted);
    await limiter.admit(keyID, quotas, now);
    expect(await redis.hGet(counted, "r")).toBe("2");
    expect(first).toBeGreaterThan(now);
    expect(await redis.pExpireTime(counted)).toBe(first);
  });
});

describe("RateLimiter round trips (its own redis-server, so no other test's commands are counted)", () => {
  let server: RedisServer;
  let client: RedisClient;

  beforeAll(async () => {
    ({ server, client } = await startOwnRedis("redis-round-trips"));
  });

  afterAll(async () => {
    await client.quit();
    await server.stop();
  });

  /** Commands the server has run, by name (INFO commandstats), minus the INFO calls themselves. */
  async function commandCounts(): Promise<Map<string, number>> {
    const info = await client.info("commandstats");
    const counts = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== "info") counts.set(match[1] ?? "", Number(match[2]));
    }
    return counts;
  }

  it("costs one Redis command per request, its entities included, and stays exact", async () => {
    const limited = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const keyID = freshKey();
    const quotas = [quota("per-second", null), quota("per-minute", 1_000, 55), quota("per-day", null)];
    const now = Date.UTC(2030, 10, 21, 16, 0, 0, 100);
    // The first call loads the script (NOSCRIPT, then EVAL); every later one is one EVALSHA.
    await limited.admit(keyID, quotas, now);
    limited.recordEntities(keyID, quotas, 10, now);
    const before = await commandCounts();
    const decisions = [];
    for (let i = 0; i < 5; i += 1) {
      decisions.push(await limited.admit(keyID, quotas, now + 1));
      limited.recordEntities(keyID, quotas, 10, now + 1);
    }
    const after = await commandCounts();
    const ran = Object.fromEntries(
      [...after].map(([name, calls]) => [name, calls - (before.get(name) ?? 0)]).filter(([, n]) => n !== 0),
    );
    // Five EVALSHA calls and nothing else from the client; commandstats also counts what the script
    // runs inside: per call 3 HMGET, 3 HSET (each window's requests and entities, the carried entities
    // added) and a GET of the key's revision. No PEXPIREAT: a hash gets its expiry when a call makes it,
    // and the first admission, before these, made all three.
    expect(ran).toEqual({ evalsha: 5, get: 5, hmget: 15, hset: 15 });
    // 10 + 4 x 10 = 50 entities before the fifth request: under 55, admitted; the sixth sees 60.
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true]);
    const refused = await limited.admit(keyID, quotas, now + 2);
    expect(refused).toMatchObject({ allowed: false, headline: { window: "per-minute", limit: 55, remaining: 0 } });
    const counts = await limited.current(keyID, quotas, now + 2);
    expect(counts.get("per-minute")).toEqual({ window: "per-minute", requests: 6, entities: 60 });
    expect(counts.get("per-day")).toEqual({ window: "per-day", requests: 6, entities: 60 });
  });

  it("admissions of one key made together go out as one command, counted once each and answered on their own", async () => {
    const limited = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const keyID = freshKey();
    const quotas = [quota("per-minute", 15), quota("per-day", null)];
    const now = Date.UTC(2030, 10, 21, 17, 0, 0, 100);
    await limited.loadScript();
    const before = await commandCounts();
    // Twenty requests of one key read in the same turn of the event loop.
    const decisions = await Promise.all(Array.from({ length: 20 }, () => limited.admit(keyID, quotas, now)));
    const after = await commandCounts();
    expect((after.get("evalsha") ?? 0) - (before.get("evalsha") ?? 0)).toBe(1);
    // Its windows read once and written once, however many requests it decided.
    expect((after.get("hmget") ?? 0) - (before.get("hmget") ?? 0)).toBe(2);
    expect((after.get("hset") ?? 0) - (before.get("hset") ?? 0)).toBe(2);
    // Exactly the limit admitted, each with its own place in the window; the rest refused.
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted).toHaveLength(15);
    expect(admitted.map((decision) => decision.headline?.remaining)).toEqual(
      Array.from({ length: 15 }, (_, index) => 14 - index),
    );
    expect(decisions.every((decision) => decision.enforced)).toBe(true);
    const counts = await limited.current(keyID, quotas, now);
    expect(counts.get("per-minute")).toEqual({ window: "per-minute", requests: 15, entities: 0 });
  });

  it("admissions of several keys made together go out as one command per key, each key counted on its own", async () => {
    const limited = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const keys = [freshKey(), freshKey(), freshKey()];
    const quotas = [quota("per-minute", 4)];
    const now = Date.UTC(2030, 10, 21, 17, 30, 0, 100);
    await limited.loadScript();
    const before = await commandCounts();
    const decisions = await Promise.all(
      Array.from({ length: 18 }, (_, index) => limited.admit(keys[index % 3] ?? "", quotas, now)),
    );
    const after = await commandCounts();
    expect((after.get("evalsha") ?? 0) - (before.get("evalsha") ?? 0)).toBe(3);
    // Six requests of each key, in turn: each key's first four admitted, its last two refused.
    expect(decisions.map((decision) => decision.allowed)).toEqual(Array.from({ length: 18 }, (_, index) => index < 12));
    for (const keyID of keys) {
      expect((await limited.current(keyID, quotas, now)).get("per-minute")?.requests).toBe(4);
    }
  });

  it("decides admissions made together exactly as the same admissions made one after another", async () => {
    // Two keys, the same requests: one key's admitted one at a time, the other's all in one turn (one call).
    // Entities served between them, windows limited by requests and by entities, and a second that ends
    // among them: the batch must give every request the decision, headline and counters it gets alone.
    const sequential = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const together = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const [alone, batched] = [freshKey(), freshKey()];
    const quotas = [quota("per-second", 3), quota("per-minute", 9, 40), quota("per-day", null)];
    const second = Date.UTC(2030, 10, 21, 19, 0, 0, 0);
    const instants = [100, 200, 300, 400, 900, 1_000, 1_100, 1_200, 1_300, 1_400, 1_500, 1_600].map(
      (offset) => second + offset,
    );
    const entitiesServed = [5, 0, 12, 3, 9, 0, 7, 1, 2, 30, 0, 4];
    const view = (decision: Admission) => ({
      allowed: decision.allowed,
      headline: decision.headline,
      counts: decision.counts ? [...decision.counts().values()] : undefined,
    });

    const one: ReturnType<typeof view>[] = [];
    for (const [index, at] of instants.entries()) {
      const decision = await sequential.admit(alone, quotas, at);
      one.push(view(decision));
      if (decision.allowed) sequential.recordEntities(alone, quotas, entitiesServed[index] ?? 0, at);
    }
    const pending = instants.map((at, index) => {
      const decision = together.admit(batched, quotas, at);
      // Entities the request will serve, known here only for the test: carried by the next admission.
      together.recordEntities(batched, quotas, one[index]?.allowed ? (entitiesServed[index] ?? 0) : 0, at);
      return decision;
    });
    const all = (await Promise.all(pending)).map(view);

    expect(all).toEqual(one);
    expect(one.filter((decision) => decision.allowed).length).toBeGreaterThan(3);
    expect(one.filter((decision) => !decision.allowed).length).toBeGreaterThan(3);
    await Promise.all([sequential.flush(), together.flush()]);
    for (const at of [second, second + 1_000]) {
      expect(await together.current(batched, quotas, at)).toEqual(await sequential.current(alone, quotas, at));
    }
  });

  it("a call that fails beside others fails alone: its request fails open, the others are counted", async () => {
    const limited = new RateLimiter(client, { failMode: "open", logger, limits: PATIENT });
    const [broken, sound] = [freshKey(), freshKey()];
    const quotas = [quota("per-minute", 100)];
    const now = Date.UTC(2030, 10, 21, 18, 0, 0, 100);
    // A window that is not a hash: the script fails for this key (WRONGTYPE), not for the other.
    await client.set(`rl:{${broken}}:per-minute:${Math.floor(now / 60_000) * 60_000}`, "not a hash");
    const [failed, counted] = await Promise.all([
      limited.admit(broken, quotas, now),
      limited.admit(sound, quotas, now),
    ]);
    expect(failed).toEqual({ allowed: true, enforced: false });
    expect(counted).toMatchObject({ allowed: true, enforced: true, headline: { remaining: 99 } });
    expect((await limited.current(sound, quotas, now)).get("per-minute")?.requests).toBe(1);
  });
});

describe("RateLimiter without Redis", () => {
  async function unreachableClient(): Promise<RedisClient> {
    const port = await freePort();
    const client = createClient({
      url: `redis://127.0.0.1:${port}`,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: false },
    });
    client.on("error", () => undefined);
    await client.connect().catch(() => undefined);
    return client;
  }

  it("fails open by default: admits the request and reports itself unreachable", async () => {
    const client = await unreachableClient();
    const open = new RateLimiter(client, { failMode: "open", logger });
    const decision = await open.admit(freshKey(), [quota("per-second", 1)]);
    expect(decision).toEqual({ allowed: true, enforced: false });
    expect(open.isReachable()).toBe(false);
  });

  it("fails closed when configured: raises RateLimiterUnavailableError", async () => {
    const client = await unreachableClient();
    const closed = new RateLimiter(client, { failMode: "closed", logger });
    await expect(closed.admit(freshKey(), [quota("per-second", 1)])).rejects.toBeInstanceOf(
      RateLimiterUnavailableError,
    );
  });
});

describe("RateLimiter with Redis hung (process stopped with SIGSTOP, then resumed)", () => {
  let server: RedisServer;
  let client: RedisClient;
  const limits = { timeoutMs: 300, breakAfterFailures: 3, probeAfterMs: 500 };

  beforeAll(async () => {
    ({ server, client } = await startOwnRedis("redis-hung"));
  });

  afterAll(async () => {
    server.child.kill("SIGCONT");
    client.destroy();
    await server.stop();
  });

  /** Times a call; a hung store must cost at most about one deadline (plus scheduling slack on a busy machine). */
  async function timed<T>(call: () => Promise<T>): Promise<{ value: T | Error; ms: number }> {
    const started = Date.now();
    const value = await call().catch((err: Error) => err);
    return { value, ms: Date.now() - started };
  }

  it("fails open within its deadline while Redis is hung, then enforces again once it resumes", async () => {
    const open = new RateLimiter(client, { failMode: "open", logger, limits });
    const keyID = freshKey();
    expect(await open.admit(keyID, [quota("per-minute", 1_000)])).toMatchObject({ allowed: true, enforced: true });
    server.child.kill("SIGSTOP");
    try {
      for (let i = 0; i < 5; i += 1) {
        const { value, ms } = await timed(() => open.admit(keyID, [quota("per-minute", 1_000)]));
        expect(value).toEqual({ allowed: true, enforced: false });
        expect(ms).toBeLessThan(5_000);
      }
      expect(open.isReachable()).toBe(false);
    } finally {
      server.child.kill("SIGCONT");
    }
    let decision = await open.admit(keyID, [quota("per-minute", 1_000)]);
    for (let attempt = 0; attempt < 50 && !decision.enforced; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      decision = await open.admit(keyID, [quota("per-minute", 1_000)]);
    }
    expect(decision).toMatchObject({ allowed: true, enforced: true });
  });

  it("fails closed within its deadline while Redis is hung when configured to", async () => {
    const closed = new RateLimiter(client, { failMode: "closed", logger, limits });
    server.child.kill("SIGSTOP");
    try {
      const { value, ms } = await timed(() => closed.admit(freshKey(), [quota("per-second", 5)]));
      expect(value).toBeInstanceOf(RateLimiterUnavailableError);
      expect(ms).toBeLessThan(5_000);
    } finally {
      server.child.kill("SIGCONT");
    }
  });
});
