import { status } from "@grpc/grpc-js";
import { freePort, testMongoUri, testRedisUrl } from "@odds/local";
import {
  callUnary,
  connectMongo,
  createGrpcClient,
  createLogger,
  createRedisClient,
  ensureIndexes,
  keyRevisionKey,
  KeyRevisions,
  type RedisClient,
  startGrpcServer,
  type MongoStore,
  type RunningGrpcServer,
} from "@odds/platform";
import { usage } from "@odds/proto";
import { adminProgram } from "../src/admin/cli";
import { DEFAULT_PLANS_FILE } from "../src/config";
import { hashApiKey, KEY_INDEXES, KeyRegistry } from "../src/keys";
import { PlanBook } from "../src/plans";
import { usageService } from "../src/rpc";
import { ROLLUP_INDEXES, UsageRollups } from "../src/usage-rollups";

const logger = createLogger("usage-test", "silent");
let store: MongoStore;
let server: RunningGrpcServer;
let client: usage.UsageServiceClient;
let keys: KeyRegistry;
let rollups: UsageRollups;
let redis: RedisClient;

/** The usage service over real gRPC on the test store, writing key revisions with `revisions`. */
async function startUsage(revisions: KeyRevisions) {
  const registry = new KeyRegistry(store.db, revisions);
  const started = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        name: "odds.usage.v1.UsageService",
        definition: usage.UsageServiceService,
        implementation: usageService(logger, { keys: registry, plans: PlanBook.fromFile(DEFAULT_PLANS_FILE), rollups }),
      },
    ],
  });
  const connected = createGrpcClient(usage.UsageServiceClient, `127.0.0.1:${started.port}`, {
    defaultDeadlineMs: 5_000,
  });
  return { server: started, client: connected, keys: registry };
}

beforeAll(async () => {
  store = await connectMongo(testMongoUri("usage"), { appName: "usage-test", logger });
  await ensureIndexes(store.db, { ...KEY_INDEXES, ...ROLLUP_INDEXES });
  rollups = new UsageRollups(store.db);
  redis = createRedisClient(testRedisUrl());
  await redis.connect();
  ({ server, client, keys } = await startUsage(new KeyRevisions(redis, logger)));
});

afterAll(async () => {
  client.close();
  await server.shutdown(1_000);
  await redis.quit();
  await store.close();
});

describe("UsageService over gRPC", () => {
  it("creates a key, returns it once and stores only its SHA-256 hash", async () => {
    const created = await callUnary(client, client.createKey, { tier: "base", customerId: "", email: "a@example.com" });
    const keyHash = hashApiKey(created.apiKey);
    expect(created.key?.keyId).toBe(keyHash.slice(0, 16));
    expect(created.key?.tier).toBe("base");
    expect(created.key?.isActive).toBe(true);

    const stored = await store.db.collection("api_keys").findOne({ _id: created.key?.keyId as never });
    expect(stored?.keyHash).toBe(keyHash);
    expect(JSON.stringify(stored)).not.toContain(created.apiKey);
  });

  it("resolves a key hash to its record and its tier's plan", async () => {
    const created = await callUnary(client, client.createKey, { tier: "lite", customerId: "cus_1", email: "" });
    const resolved = await callUnary(client, client.resolveKey, { keyHash: hashApiKey(created.apiKey) });
    expect(resolved.key).toMatchObject({ keyId: created.key?.keyId, tier: "lite", customerId: "cus_1", email: "" });
    expect(resolved.plan).toMatchObject({
      tier: "lite",
      allLeagues: false,
      leagueIds: ["AFL", "NRL", "EPL"],
      allBookmakers: false,
      bookmakerIds: ["sportsbet", "tab", "ladbrokes_au", "neds"],
      fairOdds: false,
    });
    expect(resolved.plan?.limits.find((limit) => limit.window === "per-second")?.maxRequests).toBe(5);
  });

  it("answers NOT_FOUND for an unknown hash, even one sharing the keyID prefix", async () => {
    const created = await callUnary(client, client.createKey, { tier: "base", customerId: "", email: "" });
    const keyHash = hashApiKey(created.apiKey);
    const forged = keyHash.slice(0, 16) + "0".repeat(48);
    await expect(callUnary(client, client.resolveKey, { keyHash: forged })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await expect(callUnary(client, client.resolveKey, { keyHash: hashApiKey("nope") })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
  });

  it("rejects an unknown tier with INVALID_ARGUMENT naming tier", async () => {
    await expect(
      callUnary(client, client.createKey, { tier: "gold", customerId: "", email: "" }),
    ).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining("tier"),
    });
  });

  it("deactivates and reactivates a key by keyID, and lists it", async () => {
    const created = await callUnary(client, client.createKey, {
      tier: "base",
      customerId: "",
      email: "off@example.com",
    });
    const keyId = created.key?.keyId ?? "";
    expect((await callUnary(client, client.setKeyActive, { keyId, isActive: false })).isActive).toBe(false);
    const resolved = await callUnary(client, client.resolveKey, { keyHash: hashApiKey(created.apiKey) });
    expect(resolved.key?.isActive).toBe(false);
    expect((await callUnary(client, client.setKeyActive, { keyId, isActive: true })).isActive).toBe(true);
    const listed = await callUnary(client, client.listKeys, {});
    expect(listed.keys.map((key) => key.keyId)).toContain(keyId);
  });

  it("gives a key a new revision token in Redis as it is created and each time it is (de)activated", async () => {
    const created = await callUnary(client, client.createKey, { tier: "base", customerId: "", email: "" });
    const keyId = created.key!.keyId;
    const revision = () => redis.get(keyRevisionKey(keyId));
    const seen = [await revision()];
    await callUnary(client, client.setKeyActive, { keyId, isActive: false });
    seen.push(await revision());
    await callUnary(client, client.setKeyActive, { keyId, isActive: true });
    seen.push(await revision());
    expect(seen.every((token) => typeof token === "string" && token.length > 0)).toBe(true);
    expect(new Set(seen).size).toBe(3);
  });

  it("still changes a key when Redis cannot be reached: the change is stored and answered, and logged", async () => {
    const unreachable = createRedisClient(`redis://127.0.0.1:${await freePort()}`);
    unreachable.on("error", () => undefined);
    // Not awaited: the client keeps trying to connect, as a service's does while Redis is down.
    unreachable.connect().catch(() => undefined);
    const warnings: string[] = [];
    const warnLogger = Object.assign(Object.create(logger), { warn: (_: object, msg: string) => warnings.push(msg) });
    let failures = 0;
    const offline = await startUsage(
      new KeyRevisions(unreachable, warnLogger, { failures: { inc: () => (failures += 1) } }),
    );
    try {
      const created = await callUnary(offline.client, offline.client.createKey, {
        tier: "lite",
        customerId: "",
        email: "",
      });
      const keyId = created.key!.keyId;
      await callUnary(offline.client, offline.client.setKeyActive, { keyId, isActive: false });
      const resolved = await callUnary(client, client.resolveKey, { keyHash: hashApiKey(created.apiKey) });
      expect(resolved.key?.isActive).toBe(false);
      expect(await redis.get(keyRevisionKey(keyId))).toBeNull();
      // Created, then deactivated: two changes, neither with its revision; each logged and counted.
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain("revision could not be written");
      expect(failures).toBe(2);
    } finally {
      offline.client.close();
      await offline.server.shutdown(1_000);
      unreachable.destroy();
    }
  });

  it("answers NOT_FOUND when deactivating an unknown keyID", async () => {
    await expect(
      callUnary(client, client.setKeyActive, { keyId: "0000000000000000", isActive: false }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it("adds recorded usage to the key's day and month rollups", async () => {
    const at = Date.UTC(2026, 10, 21, 12);
    await callUnary(client, client.recordUsage, {
      senderId: "",
      sequence: 0,
      batchId: "rollup-1",
      keyId: "rollupkey0000001",
      atMs: at,
      requests: 3,
      entities: 40,
    });
    await callUnary(client, client.recordUsage, {
      senderId: "",
      sequence: 0,
      batchId: "rollup-2",
      keyId: "rollupkey0000001",
      atMs: at + 1_000,
      requests: 1,
      entities: 2,
    });
    expect(await rollups.forKey("rollupkey0000001")).toEqual([
      { keyID: "rollupkey0000001", period: "day", bucket: "2026-11-21", requests: 4, entities: 42 },
      { keyID: "rollupkey0000001", period: "month", bucket: "2026-11", requests: 4, entities: 42 },
    ]);
  });
});

describe("usage batches named by an id on the real store (a sender that does not number its batches)", () => {
  const keyID = `batchkey${process.pid}`.slice(0, 16).padEnd(16, "0");
  const at = Date.UTC(2026, 10, 22, 9);
  const send = (batchId: string, requests: number, entities: number) =>
    callUnary(client, client.recordUsage, {
      senderId: "",
      sequence: 0,
      batchId,
      keyId: keyID,
      atMs: at,
      requests,
      entities,
    });

  it("counts a batch once however often it is re-sent, even concurrently, and counts other batches", async () => {
    await send("batch-1", 5, 50);
    // Re-sent after a timed-out call, twice at once, then again later.
    await Promise.all([send("batch-1", 5, 50), send("batch-1", 5, 50)]);
    await send("batch-2", 1, 10);
    await send("batch-1", 5, 50);
    expect(await rollups.forKey(keyID)).toEqual([
      { keyID, period: "day", bucket: "2026-11-22", requests: 6, entities: 60 },
      { keyID, period: "month", bucket: "2026-11", requests: 6, entities: 60 },
    ]);
  });

  it("still recognises a re-sent batch after hundreds of later batches", async () => {
    const many = `manykey${process.pid}`.slice(0, 16).padEnd(16, "0");
    const sendFor = (batchId: string) =>
      callUnary(client, client.recordUsage, {
        senderId: "",
        sequence: 0,
        batchId,
        keyId: many,
        atMs: at,
        requests: 1,
        entities: 1,
      });
    for (let i = 0; i < 300; i += 1) await sendFor(`b-${i}`);
    await sendFor("b-0");
    const day = await store.db.collection("usage_rollups").findOne({ _id: `${many}:day:2026-11-22` as never });
    expect(day).toMatchObject({ requests: 300, entities: 300 });
    // The list is bounded ($slice) on MongoDB only: FerretDB 1.24 ignores $slice in $push (docs/performance.md "Usage
    // batches numbered").
  });
});

describe("numbered usage batches on the real store", () => {
  const at = Date.UTC(2026, 10, 23, 9);
  const sendAs = (keyId: string, senderId: string, sequence: number, requests: number) =>
    callUnary(client, client.recordUsage, { batchId: "", senderId, sequence, keyId, atMs: at, requests, entities: 1 });
  const counts = async (keyID: string) =>
    (await rollups.forKey(keyID)).map(({ period, requests, entities }) => ({ period, requests, entities }));

  it("counts a sender's batch once however often it is re-sent, even concurrently, and counts its next ones", async () => {
    const keyID = `numbered${process.pid}`.slice(0, 16).padEnd(16, "0");
    await sendAs(keyID, "edge-a", 1, 5);
    // Re-sent after a timed-out call, twice at once, then again after the next batch was counted.
    await Promise.all([sendAs(keyID, "edge-a", 1, 5), sendAs(keyID, "edge-a", 1, 5)]);
    await sendAs(keyID, "edge-a", 2, 1);
    await sendAs(keyID, "edge-a", 1, 5);
    await sendAs(keyID, "edge-a", 2, 1);
    expect(await counts(keyID)).toEqual([
      { period: "day", requests: 6, entities: 2 },
      { period: "month", requests: 6, entities: 2 },
    ]);
  });

  it("counts each sender's batches apart, and holds one number per sender instead of a list of batches", async () => {
    const keyID = `twosend${process.pid}`.slice(0, 16).padEnd(16, "0");
    for (let sequence = 1; sequence <= 300; sequence += 1) {
      await sendAs(keyID, "edge-a", sequence, 1);
      if (sequence % 3 === 0) await sendAs(keyID, "edge-b", sequence / 3, 2);
    }
    await Promise.all([sendAs(keyID, "edge-a", 300, 1), sendAs(keyID, "edge-b", 100, 2)]);
    expect(await counts(keyID)).toEqual([
      { period: "day", requests: 500, entities: 400 },
      { period: "month", requests: 500, entities: 400 },
    ]);
    const day = await store.db.collection("usage_rollups").findOne({ _id: `${keyID}:day:2026-11-23` as never });
    expect(day?.senders).toEqual({ "edge-a": 300, "edge-b": 100 });
    expect(day?.recentBatches).toBeUndefined();
  });

  it("rejects a sender id that cannot name a field, naming sender_id, and a batch numbered 0, naming sequence", async () => {
    await expect(sendAs("badsender0000001", "edge.a", 1, 1)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining("sender_id"),
    });
    await expect(sendAs("badsender0000001", "edge-a", 0, 1)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining("sequence"),
    });
    expect(await rollups.forKey("badsender0000001")).toEqual([]);
  });
});

describe("KeyRegistry.seed", () => {
  it("seeds a bootstrap key idempotently and keeps a deactivated seed deactivated", async () => {
    const apiKey = "odds_dev_seeded_key_0123456789";
    const first = await keys.seed(apiKey, { tier: "internal", email: "dev@localhost" });
    await keys.setActive(first.keyID, false);
    const second = await keys.seed(apiKey, { tier: "internal", email: "dev@localhost" });
    expect(second.keyID).toBe(first.keyID);
    expect(second.isActive).toBe(false);
    expect(await store.db.collection("api_keys").countDocuments({ _id: first.keyID as never })).toBe(1);
  });
});

describe("admin CLI", () => {
  async function admin(...args: string[]): Promise<unknown> {
    const output: string[] = [];
    const write = jest.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
    try {
      await adminProgram().parseAsync(["node", "admin", "--addr", `127.0.0.1:${server.port}`, ...args]);
    } finally {
      write.mockRestore();
    }
    return JSON.parse(output.join(""));
  }

  it("creates a key printed once as {apiKey, keyID, tier}, then deactivates, reactivates and lists it", async () => {
    const created = (await admin("keys", "create", "--tier", "base", "--email", "x@y.example")) as Record<
      string,
      string
    >;
    expect(Object.keys(created).sort()).toEqual(["apiKey", "keyID", "tier"]);
    expect(created.keyID).toBe(hashApiKey(created.apiKey ?? "").slice(0, 16));
    expect(created.tier).toBe("base");

    expect(await admin("keys", "deactivate", created.keyID ?? "")).toMatchObject({
      keyID: created.keyID,
      isActive: false,
    });
    expect(await admin("keys", "reactivate", created.keyID ?? "")).toMatchObject({
      keyID: created.keyID,
      isActive: true,
    });
    const listed = (await admin("keys", "list")) as Array<Record<string, unknown>>;
    const entry = listed.find((key) => key.keyID === created.keyID);
    expect(entry).toMatchObject({ tier: "base", email: "x@y.example", isActive: true });
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);
  });
});
