import { status } from "@grpc/grpc-js";
import { testRedisUrl } from "@odds/local";
import { CursorSeal, KeyRevisions, metricsRegistry } from "@odds/platform";
import { common, pageLimits } from "@odds/proto";
import { randomBytes } from "node:crypto";
import type Koa from "koa";
import { createClient } from "redis";
import request from "supertest";
import { z } from "zod";
import { KeyAccess } from "../src/access/api-key";
import { KEY_RECORD_AS_ADMITTED } from "../src/routes/account";
import { UsageRecorder } from "../src/access/usage-recorder";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEdgeApp } from "../src/app";
import { contentTag, loadContentTags } from "../src/cache/content-tag";
import type { KeyGrant } from "../src/access/api-key";
import { closeDownstreamClients, createDownstreamClients, type DownstreamClients } from "../src/gateways/clients";
import { parseQuery } from "../src/http/query";
import { readBounds } from "../src/routes";
import { eventsQuery, eventsRoutes } from "../src/routes/events";
import { v1EventsRoutes, v1OddsQuery } from "../src/v1/routes/events";
import { ResponseCache } from "../src/cache/response-cache";
import { EventsGateway } from "../src/gateways/events";
import { UsageGateway, type UsageBatch } from "../src/gateways/usage";
import { answerUnparseableRequests } from "../src/http/oversized";
import { cursor, pageLimit } from "../src/http/params";
import { defineRoute, type RouteDefinition, type RoutePage } from "../src/http/route";
import { RateLimiter, type RedisClient } from "../src/ratelimit/rate-limiter";
import { windowAt, type RateWindow } from "../src/ratelimit/windows";
import { defineV1Route } from "../src/v1/route";
import { capturingLogger, countedBy, FakeFeed, FakeUsageService, grpcError, startDownstreams } from "./fixtures";

const captured = capturingLogger();
const logger = captured.logger;
const fakeUsage = new FakeUsageService();
const feed = new FakeFeed();
let downstreams: Awaited<ReturnType<typeof startDownstreams>>;
let redis: RedisClient;
let recorder: UsageRecorder;

const key = (tier: string) => `odds_${tier}_${randomBytes(12).toString("hex")}`;
const baseKey = key("base");
const liteKey = key("lite");
const inactiveKey = key("base");
const burstKey = key("lite");
const entityKey = key("lite");
const v1EntityKey = key("lite");

/** What the test data routes should do next (paged routes are told the cursor they were sent). */
let behaviour: (cursor?: string) => Promise<{ items: Uint8Array[]; nextCursor: string | null; notice?: string }>;
const item = (value: object) => Buffer.from(JSON.stringify(value));
/** What the tagged route's source answers, told the tag the edge named (undefined: none) and the items it holds. */
let taggedSource: (heldTag: string | undefined, heldItemTags?: readonly string[]) => Promise<RoutePage>;

function testRoutes(): RouteDefinition[] {
  const query = z.object({ limit: pageLimit(pageLimits.PAGE_LIMITS.events), leagueID: z.string().optional() });
  const itemSchema = z.object({ widgetID: z.string() });
  return [
    defineRoute({
      path: "/widgets/",
      summary: "Widgets",
      tag: "Test",
      query,
      item: itemSchema,
      errors: [400, 500],
      load: () => behaviour(),
    }),
    ...["/pages/", "/other-pages/"].map((path) =>
      defineRoute({
        path,
        summary: "Paged widgets",
        tag: "Test",
        query: query.extend({ cursor: cursor().optional() }),
        item: itemSchema,
        errors: [400, 500],
        load: (params) => behaviour(params.cursor),
      }),
    ),
    defineRoute({
      path: "/tagged/",
      summary: "Widgets from a source that tags its pages",
      tag: "Test",
      query,
      item: itemSchema,
      errors: [400, 500],
      load: (_params, _grant, _admitted, heldTag, heldItemTags) => taggedSource(heldTag, heldItemTags),
    }),
    defineRoute({
      path: "/odds/history/",
      summary: "History",
      tag: "Test",
      query,
      item: itemSchema,
      errors: [400, 404, 500, 503],
      load: () => behaviour(),
    }),
    defineRoute({
      path: "/sports/",
      summary: "Sports",
      tag: "Test",
      // With parameters that could be malformed: the route still never answers 400.
      query,
      item: itemSchema,
      errors: [],
      lenientParameters: true,
      load: () => behaviour(),
    }),
  ];
}

/** An app whose answers any hit 100 ms after they were made renews; none expires within a test. */
function renewingApp() {
  return app({
    answers: {
      cache: new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, refreshAheadMs: 59_900 }),
      version: () => "1",
    },
  }).callback();
}

function app(
  options: {
    retired?: boolean;
    failMode?: "open" | "closed";
    limiterRedis?: RedisClient;
    answers?: { cache: ResponseCache; version: () => string };
  } = {},
): Koa {
  const usageGateway = new UsageGateway(downstreams.usageClient);
  return createEdgeApp({
    logger,
    retired: options.retired ?? false,
    access: new KeyAccess(usageGateway, {
      freshMs: 60_000,
      staleGrantMs: 60_000,
      // Patient, like the limiter's below: a burst of 200 on a loaded machine must not trip the breaker.
      limits: { timeoutMs: 60_000, breakAfterFailures: 1_000, probeAfterMs: 100 },
      logger,
    }),
    // A patient deadline: these tests prove exact counting, the deadline has tests of its own.
    limiter: new RateLimiter(options.limiterRedis ?? redis, {
      failMode: options.failMode ?? "open",
      logger,
      limits: { timeoutMs: 60_000, breakAfterFailures: 1_000, probeAfterMs: 100 },
    }),
    recorder,
    usage: usageGateway,
    cursors: new CursorSeal("edge-app-test-cursor-secret-32-chars"),
    routes: testRoutes(),
    v1Routes: [
      defineV1Route({
        path: "/widgets",
        summary: "Widgets",
        tag: "Test",
        query: z.strictObject({
          cursor: z.string().optional(),
          colour: z.string().optional(),
          size: z.string().optional(),
        }),
        item: z.object({ widgetID: z.string() }),
        data: "list",
        errors: [400, 500],
        // Two records carrying three prices between them: five objects; then a last page.
        load: async (params: { cursor?: string }) =>
          params.cursor === "n-1"
            ? { items: [item({ widgetID: "c" })], nextCursor: null, objects: 1 }
            : { items: [item({ widgetID: "a" }), item({ widgetID: "b" })], nextCursor: "n-1", objects: 5 },
      }),
      defineV1Route({
        path: "/widgets/:widget_id",
        summary: "One widget",
        tag: "Test",
        query: z.strictObject({ widget_id: z.string() }),
        item: z.object({ widgetID: z.string() }),
        data: "object",
        errors: [400, 404, 500],
        load: async (params: { widget_id: string }) => ({
          items: [item({ widgetID: params.widget_id })],
          nextCursor: null,
          objects: 1,
        }),
      }),
      defineV1Route({
        path: "/tagged",
        summary: "Widgets from a source that tags its pages",
        tag: "Test",
        query: z.strictObject({}),
        item: z.object({ widgetID: z.string() }),
        data: "list",
        errors: [400, 500],
        load: async (_params, _grant, heldTag) => ({ ...(await taggedSource(heldTag)), objects: 1 }),
      }),
    ],
    answers: options.answers,
    health: {
      version: "2.0.0",
      startedAtMs: Date.now() - 5_000,
      feedStatus: () => new EventsGateway(downstreams.eventsClient).feedStatus(),
      rateLimiterReachable: () => true,
    },
  });
}

let server: ReturnType<Koa["callback"]>;

beforeAll(async () => {
  await loadContentTags();
  downstreams = await startDownstreams(logger, fakeUsage, feed);
  redis = createClient({ url: testRedisUrl(), disableOfflineQueue: true });
  await redis.connect();
  fakeUsage.revisions = new KeyRevisions(redis, logger);
  recorder = new UsageRecorder(new UsageGateway(downstreams.usageClient), logger, 60_000);
  fakeUsage.add(baseKey, "base", { email: "base@example.com" });
  fakeUsage.add(liteKey, "lite", {
    limits: [{ window: "per-day", maxRequests: 1000, maxEntities: 5000 }],
  });
  fakeUsage.add(inactiveKey, "base", { isActive: false });
  fakeUsage.add(burstKey, "lite", { limits: [{ window: "per-minute", maxRequests: 2, maxEntities: undefined }] });
  fakeUsage.add(entityKey, "lite", { limits: [{ window: "per-hour", maxRequests: 100, maxEntities: 3 }] });
  fakeUsage.add(v1EntityKey, "lite", { limits: [{ window: "per-hour", maxRequests: 100, maxEntities: 3 }] });
  server = app().callback();
});

beforeEach(() => {
  behaviour = async () => ({ items: [item({ widgetID: "a" }), item({ widgetID: "b" })], nextCursor: "next-1" });
});

afterAll(async () => {
  downstreams.usageClient.close();
  downstreams.eventsClient.close();
  await downstreams.server.shutdown(500);
  await redis.quit();
});

/** Polls `check` every 10 ms, for at most 10 s. */
async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 10_000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe("heavy events pages", () => {
  const grant = {
    caller: common.Caller.create({ tier: "base", allSports: true, allLeagues: true, allBookmakers: true }),
  } as KeyGrant;
  /** v2's `/events/` and v1's `/odds` over these clients, under one edge's bounds. */
  const pageRoutes = (clients: DownstreamClients) => {
    const bounds = readBounds(60_000);
    return {
      route: eventsRoutes(clients, bounds)[0]!,
      v1Odds: v1EventsRoutes(clients, bounds).find((candidate) => candidate.path === "/odds")!,
    };
  };

  test("reach the events service at most four at a time, v2's and v1's together, the rest waiting their turn; a page of one event never waits", async () => {
    const clients = { events: downstreams.eventsClient, eventsHeavy: downstreams.eventsClient } as DownstreamClients;
    const { route, v1Odds } = pageRoutes(clients);
    const load = (query: Record<string, string>) =>
      route.load(parseQuery(eventsQuery, query), grant) as Promise<RoutePage>;
    let open!: () => void;
    feed.listEventsGate = new Promise<void>((resolve) => (open = resolve));
    feed.listEventsMostAtOnce = 0;
    feed.reads.length = 0;
    const v1ReadsBefore = feed.v1Reads.length;
    try {
      const heavy = Array.from({ length: 10 }, (_, n) => load({ leagueID: "AFL", limit: String(n + 2) }));
      await until(() => feed.listEventsInFlight === 4);
      // v1's odds of ten events wait behind them for the same slots.
      const v1Page = v1Odds.load(parseQuery(v1OddsQuery, { league_id: "AFL" }), grant);
      const single = load({ eventID: "e1" });
      await until(() => feed.listEventsInFlight === 5);
      expect(feed.reads.at(-1)?.eventIds).toEqual(["e1"]);
      expect(feed.v1Reads.length).toBe(v1ReadsBefore);
      open();
      await expect(single).resolves.toMatchObject({ items: [] });
      await expect(Promise.all(heavy)).resolves.toHaveLength(10);
      await expect(v1Page).resolves.toMatchObject({ items: [] });
      expect(feed.v1Reads.length).toBe(v1ReadsBefore + 1);
      // Every heavy page was loaded, never more than four of them at once (the fifth call was the one event's).
      expect(feed.reads.filter((read) => read.leagueIds.includes("AFL"))).toHaveLength(10);
      expect(feed.listEventsMostAtOnce).toBe(5);
    } finally {
      open();
      feed.listEventsGate = undefined;
    }
  });

  test("travel on connections of their own: a page of one event or a few markets and the feed status share none with them", async () => {
    const address = `127.0.0.1:${downstreams.server.port}`;
    const clients = createDownstreamClients(
      { events: address, history: address, catalogue: address, usage: address },
      2_000,
    );
    try {
      const { route, v1Odds } = pageRoutes(clients);
      const peerOf = async (query: Record<string, string>) => {
        await route.load(parseQuery(eventsQuery, query), grant);
        return feed.readPeers.at(-1);
      };
      const heavy = [
        await peerOf({ leagueID: "AFL" }),
        await peerOf({ limit: "100" }),
        await peerOf({ eventIDs: "e1,e2" }),
      ];
      const light = [
        await peerOf({ eventID: "e1" }),
        await peerOf({ leagueID: "AFL", oddID: "points-home-game-ml-home" }),
        await peerOf({ leagueID: "AFL", playerID: "p1" }),
      ];
      await new EventsGateway(clients.events).feedStatus();
      const status = feed.statusPeers.at(-1);
      const v1PeerOf = async (query: Record<string, string>) => {
        await v1Odds.load(parseQuery(v1OddsQuery, query), grant);
        return feed.v1ReadPeers.at(-1);
      };
      heavy.push(await v1PeerOf({ league_id: "AFL" }));
      light.push(await v1PeerOf({ event_id: "ev_000000000001" }));

      // One connection for the heavy pages, another for the rest and the feed status, both to the same service.
      expect(new Set(heavy).size).toBe(1);
      expect(new Set([...light, status]).size).toBe(1);
      expect(heavy[0]).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(light[0]).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(heavy[0]).not.toBe(light[0]);
    } finally {
      closeDownstreamClients(clients);
    }
  });
});

describe("API keys", () => {
  it("answers 401 Invalid API key without a key", async () => {
    const res = await request(server).get("/v2/widgets/");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: "Invalid API key" });
  });

  it("answers 401 for an unknown key", async () => {
    const res = await request(server).get("/v2/widgets/").set("x-api-key", "odds_base_not_a_key");
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("Invalid API key");
  });

  it("answers 403 Inactive API key for a deactivated key", async () => {
    const res = await request(server).get("/v2/widgets/").set("x-api-key", inactiveKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: "Inactive API key" });
  });

  it("accepts the header under any letter case and the apiKey query parameter", async () => {
    expect((await request(server).get("/v2/widgets/").set("X-API-KEY", baseKey)).status).toBe(200);
    expect((await request(server).get(`/v2/widgets/?apiKey=${baseKey}`)).status).toBe(200);
    expect((await request(server).get(`/v2/widgets/?leagueID=AFL&%61piKey=${baseKey}`)).status).toBe(200);
  });

  it("takes the header's key over the query's, and the query's only when no header names one", async () => {
    const query = "/v2/widgets/?apiKey=odds_base_not_a_key";
    expect((await request(server).get(query).set("x-api-key", baseKey)).status).toBe(200);
    expect((await request(server).get(`/v2/widgets/?apiKey=${baseKey}`).set("x-api-key", "odds_base_x")).status).toBe(
      401,
    );
    expect((await request(server).get(query)).status).toBe(401);
  });

  it("caches the plan: a key is looked up when first seen and once more under its revision, then not again", async () => {
    const fresh = key("base");
    fakeUsage.add(fresh, "base");
    const before = fakeUsage.resolveCalls;
    for (let i = 0; i < 5; i += 1) await request(server).get("/v2/widgets/").set("x-api-key", fresh);
    expect(fakeUsage.resolveCalls - before).toBe(2);
  });

  it("refuses a key deactivated at the usage service from its next request but one, long before the grant cache's 60 s", async () => {
    const fresh = key("base");
    fakeUsage.add(fresh, "base");
    const get = () => request(server).get("/v2/widgets/").set("x-api-key", fresh);
    for (let i = 0; i < 2; i += 1) expect((await get()).status).toBe(200);
    await fakeUsage.change(fresh, { isActive: false });
    // Admitted under the grant it holds; its admission returns the key's new revision.
    expect((await get()).status).toBe(200);
    const res = await get();
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: "Inactive API key" });
  });

  it("keeps serving a key whose revision did not move, with no lookup, for the grant cache's lifetime", async () => {
    const fresh = key("base");
    const other = key("base");
    fakeUsage.add(fresh, "base");
    fakeUsage.add(other, "base");
    for (let i = 0; i < 2; i += 1) await request(server).get("/v2/widgets/").set("x-api-key", fresh);
    // Another key's change is not this key's: its revision is its own.
    await fakeUsage.change(other, { isActive: false });
    const before = fakeUsage.resolveCalls;
    for (let i = 0; i < 3; i += 1)
      expect((await request(server).get("/v2/widgets/").set("x-api-key", fresh)).status).toBe(200);
    expect(fakeUsage.resolveCalls).toBe(before);
  });

  it("caches an unknown key too, so repeated bad keys do not reach the usage service each time", async () => {
    const before = fakeUsage.resolveCalls;
    for (let i = 0; i < 3; i += 1) {
      expect((await request(server).get("/v2/widgets/").set("x-api-key", "odds_base_repeated_bad_key")).status).toBe(
        401,
      );
    }
    expect(fakeUsage.resolveCalls - before).toBe(1);
  });

  it("never writes the key to the request log, even sent as a query parameter", async () => {
    const secret = key("base");
    fakeUsage.add(secret, "base");
    await request(server).get(`/v2/widgets/?leagueID=AFL&apiKey=${secret}`);
    await request(server).get("/v2/widgets/").set("x-api-key", secret);
    await request(server).get(`/v2/nope?apiKey=${secret}`);
    const log = captured.lines.join("");
    expect(log).toContain("apiKey=[REDACTED]");
    expect(log).not.toContain(secret);
  });
});

describe("envelope and routing", () => {
  it("splices the rendered items into the success envelope unchanged", async () => {
    behaviour = async () => ({
      items: [Buffer.from('{"widgetID":"a","price":"+150"}'), Buffer.from('{"widgetID":"b"}')],
      nextCursor: null,
      notice: "series incomplete",
    });
    const res = await request(server).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      '{"success":true,"data":[{"widgetID":"a","price":"+150"},{"widgetID":"b"}],"nextCursor":null,"notice":"series incomplete"}',
    );
  });

  it("passes the nextCursor through and sends an empty list as data: []", async () => {
    behaviour = async () => ({ items: [], nextCursor: "abc" });
    const res = await request(server).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.body).toEqual({ success: true, data: [], nextCursor: "abc" });
  });

  it("answers the same route with and without the trailing slash", async () => {
    expect((await request(server).get("/v2/widgets").set("x-api-key", baseKey)).status).toBe(200);
    expect((await request(server).get("/v2/widgets/").set("x-api-key", baseKey)).status).toBe(200);
    expect((await request(server).get("/v2/health/")).status).toBe(200);
  });

  it("answers 404 Not found in the envelope for an unknown route", async () => {
    const res = await request(server).get("/v2/unknown/").set("x-api-key", baseKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Not found" });
  });

  it("answers 405 with Allow for a non-GET method on a route", async () => {
    const res = await request(server).post("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
    expect(res.body.success).toBe(false);
  });

  it("compresses with gzip or br when the client accepts it", async () => {
    behaviour = async () => ({
      items: Array.from({ length: 100 }, (_, i) => item({ widgetID: `widget-${i}`, padding: "x".repeat(40) })),
      nextCursor: null,
    });
    const gzip = await request(server).get("/v2/widgets/").set("x-api-key", baseKey).set("Accept-Encoding", "gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.body.data).toHaveLength(100);
    const br = await request(server).get("/v2/widgets/").set("x-api-key", baseKey).set("Accept-Encoding", "br");
    expect(br.headers["content-encoding"]).toBe("br");
  });

  it("answers every v2 route 410 Gone once v2 is retired", async () => {
    const retired = app({ retired: true }).callback();
    for (const path of ["/v2/health", "/v2/widgets/", "/v2/account/usage", "/v2/stream/events", "/v2/openapi.json"]) {
      const res = await request(retired).get(path).set("x-api-key", baseKey);
      expect([path, res.status, res.body.error]).toEqual([path, 410, "Gone"]);
    }
  });
});

describe("v1 beside v2", () => {
  it("keeps answering /v1 when v2 is retired, in {data, meta, links} with the cost in objects", async () => {
    const retired = app({ retired: true }).callback();
    const res = await request(retired).get("/v1/widgets").set("Authorization", `Bearer ${baseKey}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [{ widgetID: "a" }, { widgetID: "b" }],
      meta: { count: 2, cost: { objects: 5 } },
      links: { self: "/v1/widgets", next: expect.stringMatching(/^\/v1\/widgets\?cursor=/) },
    });
    // links.next carries the route's cursor sealed (never "n-1" in the clear); following it opens it again.
    expect(res.body.links.next).not.toContain("n-1");
    const last = await request(retired).get(res.body.links.next).set("Authorization", `Bearer ${baseKey}`);
    expect(last.body).toEqual({
      data: [{ widgetID: "c" }],
      meta: { count: 1, cost: { objects: 1 } },
      links: { self: res.body.links.next, next: null },
    });
    expect((await request(retired).get("/v2/widgets/").set("x-api-key", baseKey)).status).toBe(410);
  });

  it("answers a plain GET of the odds stream, a WebSocket, with a 426 problem naming the upgrade", async () => {
    const plain = await request(server).get("/v1/stream/odds").set("Authorization", `Bearer ${baseKey}`);
    expect(plain.status).toBe(426);
    expect(plain.headers.upgrade).toBe("websocket");
    expect(plain.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(plain.text)).toMatchObject({
      type: "urn:odds:problem:upgrade-required",
      title: "Upgrade required",
      status: 426,
      detail: expect.stringMatching(/^\/v1\/stream\/odds is a WebSocket: connect with Upgrade: websocket/),
      instance: "/v1/stream/odds",
    });
  });

  it("reads a route's parameters from its path as well as its query: each widget's own, however often asked", async () => {
    for (const widget of ["a", "b", "a", "b"]) {
      const res = await request(server).get(`/v1/widgets/${widget}`).set("Authorization", `Bearer ${baseKey}`);
      expect([res.status, JSON.parse(res.text).data]).toEqual([200, { widgetID: widget }]);
    }
  });

  it("names a request by its query's parameters in the order of their names: links.self and links.next alike", async () => {
    for (const query of [
      "size=L&colour=red&colour=blue",
      "colour=red&size=L&colour=blue",
      "colour=red&colour=blue&size=L",
    ]) {
      const res = await request(server).get(`/v1/widgets?${query}`).set("Authorization", `Bearer ${baseKey}`);
      expect(res.status).toBe(200);
      const { links } = JSON.parse(res.text);
      expect(links.self).toBe("/v1/widgets?colour=red&colour=blue&size=L");
      expect(links.next).toMatch(/^\/v1\/widgets\?colour=red&colour=blue&size=L&cursor=/);
    }
  });

  it("answers a forged v1 cursor with a 400 problem naming cursor", async () => {
    const forged = await request(server).get("/v1/widgets?cursor=n-1").set("Authorization", `Bearer ${baseKey}`);
    expect(forged.status).toBe(400);
    expect(forged.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(forged.text).detail).toMatch(/cursor/);
  });

  it("refuses the v2 key header on v1 with a 401 problem, and answers unknown v1 paths with a 404 problem", async () => {
    const refused = await request(server).get("/v1/widgets").set("x-api-key", baseKey);
    expect(refused.status).toBe(401);
    expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.text)).toMatchObject({ status: 401, title: "Invalid API key", instance: "/v1/widgets" });
    const missing = await request(server).get("/v1/nothing-here").set("Authorization", `Bearer ${baseKey}`);
    expect([missing.status, JSON.parse(missing.text).title]).toEqual([404, "Not found"]);
  });

  it("counts objects, not records, against the key's entity limit", async () => {
    const first = await request(server).get("/v1/widgets").set("Authorization", `Bearer ${v1EntityKey}`);
    expect(first.status).toBe(200);
    // Five objects spent of three: the next request finds the hour's entity window exhausted.
    let second = await request(server).get("/v1/widgets").set("Authorization", `Bearer ${v1EntityKey}`);
    for (let attempt = 0; attempt < 50 && second.status === 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      second = await request(server).get("/v1/widgets").set("Authorization", `Bearer ${v1EntityKey}`);
    }
    expect(second.status).toBe(429);
    expect(JSON.parse(second.text)).toMatchObject({ status: 429, title: "Rate limit exceeded" });
    expect(second.headers["retry-after"]).toMatch(/^\d+$/);
  });
});

describe("parameters", () => {
  it("rejects a limit above the maximum with 400 Invalid params naming the parameter", async () => {
    const res = await request(server).get("/v2/widgets/?limit=101").set("x-api-key", baseKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: "Invalid params", message: "limit: at most 100" });
  });

  it("rejects a malformed limit naming the parameter", async () => {
    const res = await request(server).get("/v2/widgets/?limit=ten").set("x-api-key", baseKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^limit: /);
  });

  it.each([
    ["leagueID[$ne]=EPL", "leagueID[$ne]: "],
    ["limit[]=5", "limit[]: "],
    ["leagueID.%24ne=EPL", "leagueID.$ne: "],
    ["leagueID=EPL%00", "leagueID: contains control"],
    ["leagueID=%C3%28", "leagueID: contains control"],
    ["limit=1e309", "limit: "],
    ["limit=0x10", "limit: "],
    ["limit=10.5", "limit: "],
  ])("refuses %s with 400 naming the parameter, never dropping it", async (query, message) => {
    const res = await request(server).get(`/v2/widgets/?${query}`).set("x-api-key", baseKey);
    expect([res.status, res.body.error]).toEqual([400, "Invalid params"]);
    expect(res.body.message.startsWith(message)).toBe(true);
  });

  it("answers uncompressed when the client refuses every coding (gzip;q=0, identity;q=0)", async () => {
    behaviour = async () => ({
      items: Array.from({ length: 100 }, (_, i) => item({ widgetID: `widget-${i}`, padding: "x".repeat(40) })),
      nextCursor: null,
    });
    const res = await request(server)
      .get("/v2/widgets/")
      .set("x-api-key", baseKey)
      .set("Accept-Encoding", "gzip;q=0, br;q=0, identity;q=0");
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.body.data).toHaveLength(100);
  });

  it("answers oversized requests (100 KB query, 10,000 IDs, 100 KB header) 431 in the envelope, never empty", async () => {
    const http = createServer(app().callback());
    answerUnparseableRequests(http);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v2/widgets/`;
    const ids = Array.from({ length: 10_000 }, (_, i) => `EVENT_${i}`).join(",");
    try {
      for (const [url, headers] of [
        [`${base}?leagueID=${"x".repeat(100_000)}`, {}],
        [`${base}?leagueID=${ids}`, {}],
        [base, { "x-padding": "y".repeat(100_000) }],
      ] as const) {
        const res = await fetch(url, { headers: { "x-api-key": baseKey, ...headers } });
        expect([res.status, await res.json()]).toEqual([
          431,
          { success: false, error: "Request too large", message: expect.stringContaining("16 KiB") },
        ]);
      }
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("ignores unknown parameters", async () => {
    const res = await request(server).get("/v2/widgets/?colour=blue&limit=5").set("x-api-key", baseKey);
    expect(res.status).toBe(200);
  });

  it("checks the key before the parameters", async () => {
    expect((await request(server).get("/v2/widgets/?limit=999")).status).toBe(401);
  });
});

describe("paging cursors", () => {
  const firstPage = async (path = "/v2/pages/?leagueID=AFL", apiKey = baseKey) => {
    behaviour = async () => ({ items: [item({ widgetID: "a" })], nextCursor: "position-after-a" });
    const res = await request(server).get(path).set("x-api-key", apiKey);
    expect(res.status).toBe(200);
    return res.body.nextCursor as string;
  };
  const next = async (path: string, apiKey = baseKey) => {
    let received: string | undefined;
    behaviour = async (cursor) => {
      received = cursor;
      return { items: [item({ widgetID: "b" })], nextCursor: null };
    };
    const res = await request(server).get(path).set("x-api-key", apiKey);
    return { status: res.status, body: res.body as { message?: string }, received };
  };

  it("seals the issuer's cursor, and hands the issuer its own cursor back on the next page", async () => {
    const sealed = await firstPage();
    expect(sealed).not.toContain("position-after-a");
    const res = await next(`/v2/pages/?leagueID=AFL&limit=3&cursor=${sealed}`);
    expect(res.status).toBe(200);
    expect(res.received).toBe("position-after-a");
  });

  it("answers 400 naming cursor for a forged, truncated, other-route, other-filter or other-plan cursor", async () => {
    const sealed = await firstPage();
    const [body, mac] = sealed.split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, c: "position-after-z" })).toString("base64url")}.${mac}`;
    const cases: [string, string, RegExp][] = [
      [`/v2/pages/?leagueID=AFL&cursor=${forged}`, baseKey, /not a cursor returned by this API/],
      [`/v2/pages/?leagueID=AFL&cursor=${sealed.slice(0, -4)}`, baseKey, /not a cursor returned by this API/],
      [`/v2/pages/?leagueID=AFL&cursor=${body}`, baseKey, /not a cursor returned by this API/],
      [`/v2/other-pages/?leagueID=AFL&cursor=${sealed}`, baseKey, /another route/],
      [`/v2/pages/?leagueID=NRL&cursor=${sealed}`, baseKey, /different query parameters/],
      [`/v2/pages/?leagueID=AFL&cursor=${sealed}`, liteKey, /another plan/],
    ];
    for (const [path, apiKey, message] of cases) {
      const res = await next(path, apiKey);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^cursor: /);
      expect(res.body.message).toMatch(message);
      expect(res.received).toBeUndefined();
    }
  });
});

describe("gRPC status mapping", () => {
  it("maps INVALID_ARGUMENT to 400 Invalid params with the service's message", async () => {
    behaviour = async () => Promise.reject(grpcError(status.INVALID_ARGUMENT, "cursor: does not match this query"));
    const res = await request(server).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: "Invalid params", message: "cursor: does not match this query" });
  });

  it("maps NOT_FOUND to 404 Not found on a route that lists 404", async () => {
    behaviour = async () => Promise.reject(grpcError(status.NOT_FOUND, "no such event"));
    const res = await request(server).get("/v2/odds/history/").set("x-api-key", baseKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Not found" });
  });

  it("maps UNAVAILABLE to 503 on a route that lists 503, and to 500 Query failed elsewhere", async () => {
    behaviour = async () => Promise.reject(grpcError(status.UNAVAILABLE, "live store down"));
    expect((await request(server).get("/v2/odds/history/").set("x-api-key", baseKey)).status).toBe(503);
    const res = await request(server).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: "Query failed" });
  });

  it("maps INTERNAL and plain errors to 500 Query failed without leaking details", async () => {
    behaviour = async () => Promise.reject(grpcError(status.INTERNAL, "mongo exploded at 10.0.0.3"));
    const res = await request(server).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain("10.0.0.3");
    behaviour = async () => Promise.reject(new Error("boom"));
    expect((await request(server).get("/v2/widgets/").set("x-api-key", baseKey)).status).toBe(500);
  });

  it("never answers 400 on a route that does not list it (/sports/)", async () => {
    behaviour = async () => Promise.reject(grpcError(status.INVALID_ARGUMENT, "nope"));
    const res = await request(server).get("/v2/sports/?limit=abc&sportID=,,").set("x-api-key", baseKey);
    expect(res.status).not.toBe(400);
    behaviour = async () => ({ items: [], nextCursor: null });
    expect((await request(server).get("/v2/sports/?limit=abc").set("x-api-key", baseKey)).status).toBe(200);
  });
});

describe("rate limits at the edge", () => {
  it("answers 429 Rate limit exceeded with Retry-After and X-RateLimit headers once a window is exhausted", async () => {
    const first = await request(server).get("/v2/widgets/").set("x-api-key", burstKey);
    expect(first.status).toBe(200);
    expect(first.headers["x-ratelimit-limit"]).toBe("2");
    expect(first.headers["x-ratelimit-remaining"]).toBe("1");
    await request(server).get("/v2/widgets/").set("x-api-key", burstKey);
    const refused = await request(server).get("/v2/widgets/").set("x-api-key", burstKey);
    expect(refused.status).toBe(429);
    expect(refused.body.success).toBe(false);
    expect(refused.body.error).toBe("Rate limit exceeded");
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
  });

  it("counts one entity per object in data and refuses once max-entities is reached", async () => {
    behaviour = async () => ({
      items: [item({ widgetID: "a" }), item({ widgetID: "b" }), item({ widgetID: "c" })],
      nextCursor: null,
    });
    expect((await request(server).get("/v2/widgets/").set("x-api-key", entityKey)).status).toBe(200);
    const refused = await request(server).get("/v2/widgets/").set("x-api-key", entityKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("lets exactly 50 of 200 parallel HTTP requests through a limit of 50", async () => {
    const exact = key("lite");
    fakeUsage.add(exact, "lite", { limits: [{ window: "per-month", maxRequests: 50, maxEntities: undefined }] });
    await request(server).get("/v2/health"); // warm the app before the burst
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => request(server).get("/v2/widgets/").set("x-api-key", exact)),
    );
    expect(responses.filter((res) => res.status === 200)).toHaveLength(50);
    expect(responses.filter((res) => res.status === 429)).toHaveLength(150);
  });

  it("counts rate-limit rejections and requests by route and status in Prometheus metrics", async () => {
    const limited = key("lite");
    fakeUsage.add(limited, "lite", { limits: [{ window: "per-hour", maxRequests: 1, maxEntities: undefined }] });
    await request(server).get("/v2/widgets/").set("x-api-key", limited);
    await request(server).get("/v2/widgets/").set("x-api-key", limited);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/edge_rate_limit_rejections_total\{tier="lite",window="per-hour"\} [1-9]/);
    expect(text).toMatch(/edge_http_requests_total\{route="\/v2\/widgets",status="429"\} [1-9]/);
    expect(text).toMatch(/edge_http_request_duration_seconds_bucket\{le="[^"]+",route="\/v2\/widgets",status="200"\}/);
  });

  it("fails closed with 503 when configured and Redis is unreachable", async () => {
    const dead = createClient({
      url: "redis://127.0.0.1:1",
      disableOfflineQueue: true,
      socket: { reconnectStrategy: false },
    });
    dead.on("error", () => undefined);
    await dead.connect().catch(() => undefined);
    const closedApp = app({ failMode: "closed", limiterRedis: dead }).callback();
    const res = await request(closedApp).get("/v2/widgets/").set("x-api-key", liteKey);
    expect(res.status).toBe(503);
    const openApp = app({ failMode: "open", limiterRedis: dead }).callback();
    expect((await request(openApp).get("/v2/widgets/").set("x-api-key", liteKey)).status).toBe(200);
  });
});

describe("GET /v2/account/usage", () => {
  it("reports the key, its limits and current counters including the call itself", async () => {
    const fresh = key("lite");
    const keyID = fakeUsage.add(fresh, "lite", {
      email: "lite@example.com",
      limits: [
        { window: "per-minute", maxRequests: 60, maxEntities: 500 },
        { window: "per-day", maxRequests: 1000, maxEntities: undefined },
      ],
    });
    const startedMs = Date.now();
    await request(server).get("/v2/widgets/").set("x-api-key", fresh);
    const res = await request(server).get("/v2/account/usage").set("x-api-key", fresh);
    const endedMs = Date.now();
    expect(res.status).toBe(200);
    // A window holds both calls when they fell into the same one; on a slow machine they may straddle its
    // boundary (a second, rarely a minute). Then the current window holds the usage call itself, plus the
    // first call's two entities if that call's answer was served after the boundary (entities count in the
    // window they were served in, requests in the one they were admitted in).
    const counted = res.body.data[0].rateLimits;
    const current = (window: RateWindow) => {
      const { "current-requests": requests, "current-entities": entities } = counted[window];
      const sameWindow = windowAt(window, startedMs).startMs === windowAt(window, endedMs).startMs;
      const both = { requests: 2, entities: 2 };
      if (sameWindow) expect({ requests, entities }).toEqual(both);
      else
        expect([both, { requests: 1, entities: 0 }, { requests: 1, entities: 2 }]).toContainEqual({
          requests,
          entities,
        });
      return { "current-requests": requests, "current-entities": entities };
    };
    expect(res.body).toEqual({
      success: true,
      nextCursor: null,
      data: [
        {
          keyID,
          customerID: null,
          email: "lite@example.com",
          isActive: true,
          tier: "lite",
          rateLimits: {
            "per-second": { "max-requests": null, "max-entities": null, ...current("per-second") },
            "per-minute": { "max-requests": 60, "max-entities": 500, ...current("per-minute") },
            "per-hour": { "max-requests": null, "max-entities": null, ...current("per-hour") },
            "per-day": { "max-requests": 1000, "max-entities": null, ...current("per-day") },
            "per-month": { "max-requests": null, "max-entities": null, ...current("per-month") },
          },
        },
      ],
    });
  });

  it("answers 404 Not found when the key's record is gone", async () => {
    const fresh = key("base");
    fakeUsage.add(fresh, "base");
    const get = () => request(server).get("/v2/account/usage").set("x-api-key", fresh);
    // Two calls: the second's grant is looked up under the key's revision.
    for (let call = 0; call < 2; call += 1) expect((await get()).status).toBe(200);
    await fakeUsage.change(fresh, "removed");
    const res = await get();
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Not found" });
    // The edge then looks the key up again, and no longer knows it.
    expect((await get()).status).toBe(401);
  });

  it("shows the admitting grant with no key read while the key's revision is unchanged, and reads the record fresh once it moved", async () => {
    const fresh = key("base");
    fakeUsage.add(fresh, "base", { email: "before@example.com" });
    const get = () => request(server).get("/v2/account/usage").set("x-api-key", fresh);
    // The first call's grant was looked up before any admission of the key; the second is looked up again, under its revision.
    for (let call = 0; call < 2; call += 1) expect((await get()).status).toBe(200);
    const reads = fakeUsage.resolveCalls;
    for (let call = 0; call < 5; call += 1) {
      const res = await get();
      expect(res.body.notice).toBeUndefined();
      expect(res.body.data[0]).toMatchObject({ email: "before@example.com", isActive: true });
    }
    expect(fakeUsage.resolveCalls).toBe(reads);
    // The grant cache holds the key for 60 s in this app; the call after the change shows it all the same.
    await fakeUsage.change(fresh, { email: "after@example.com" });
    const changed = await get();
    expect(changed.body.data[0]).toMatchObject({ email: "after@example.com" });
    expect(changed.body.notice).toBeUndefined();
    expect(fakeUsage.resolveCalls).toBe(reads + 1);
  });

  it("answers 200 with the record that admitted the request, and a notice, while the usage service cannot answer", async () => {
    const fresh = key("base");
    const keyID = fakeUsage.add(fresh, "base", { email: "base-down@example.com" });
    expect((await request(server).get("/v2/account/usage").set("x-api-key", fresh)).body.notice).toBeUndefined();
    fakeUsage.unavailable = true;
    try {
      const res = await request(server).get("/v2/account/usage").set("x-api-key", fresh);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        notice: KEY_RECORD_AS_ADMITTED,
        data: [{ keyID, email: "base-down@example.com", tier: "base", isActive: true }],
      });
      // The counters still come from the rate limiter: this call is counted.
      expect(res.body.data[0].rateLimits["per-month"]["current-requests"]).toBeGreaterThanOrEqual(1);
    } finally {
      fakeUsage.unavailable = false;
    }
  });

  it("answers 401 without a key", async () => {
    expect((await request(server).get("/v2/account/usage")).status).toBe(401);
  });

  it("counts each of many concurrent calls exactly, each showing itself counted", async () => {
    const fresh = key("base");
    fakeUsage.add(fresh, "base", { email: "many@example.com" });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => request(server).get("/v2/account/usage").set("x-api-key", fresh)),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
    expect(answers.every((res) => res.body.data[0].email === "many@example.com")).toBe(true);
    // Every call sees the counter as its own admission left it: eight calls, eight distinct counts 1..8.
    const monthly = answers.map((res) => res.body.data[0].rateLimits["per-month"]["current-requests"]);
    expect([...monthly].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe("system routes", () => {
  it("answers /v2/stream/events 401 without a key, 403 for an inactive key, else 501 Not Implemented", async () => {
    expect((await request(server).get("/v2/stream/events")).status).toBe(401);
    expect((await request(server).get("/v2/stream/events").set("x-api-key", inactiveKey)).status).toBe(403);
    const res = await request(server).get("/v2/stream/events?feed=events:live").set("x-api-key", baseKey);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ success: false, error: "Not Implemented" });
  });

  it("reports health without a key: empty before the first cycle, healthy after, stale after the contract's 45 minutes", async () => {
    feed.lastCycleAtMs = 0;
    const empty = await request(server).get("/v2/health");
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ version: "2.0.0", pipeline: "empty", rateLimiter: "ok" });
    expect(empty.body.data.uptimeSeconds).toBeGreaterThanOrEqual(5);
    expect(Date.parse(empty.body.data.timestamp)).not.toBeNaN();
    feed.lastCycleAtMs = Date.now() - 60_000;
    expect((await request(server).get("/v2/health")).body.data).toMatchObject({ status: "ok", pipeline: "healthy" });
    // Quiet for 40 minutes is still within the contract's staleness flag (the old edge default said stale after 10).
    feed.lastCycleAtMs = Date.now() - 40 * 60_000;
    expect((await request(server).get("/v2/health")).body.data).toMatchObject({ status: "ok", pipeline: "healthy" });
    feed.lastCycleAtMs = Date.now() - 46 * 60_000;
    expect((await request(server).get("/v2/health")).body.data).toMatchObject({
      status: "degraded",
      pipeline: "stale",
    });
  });
});

describe("usage rollups", () => {
  it("buffers served requests and entities per key and sends them to the usage service on flush", async () => {
    const fresh = key("base");
    const keyID = fakeUsage.add(fresh, "base");
    behaviour = async () => ({ items: [item({ widgetID: "a" }), item({ widgetID: "b" })], nextCursor: null });
    await request(server).get("/v2/widgets/").set("x-api-key", fresh);
    await request(server).get("/v2/widgets/").set("x-api-key", fresh);
    await recorder.flush();
    const sent = fakeUsage.recorded.filter((entry) => entry.keyId === keyID);
    expect(sent).toEqual([expect.objectContaining({ keyId: keyID, requests: 2, entities: 4 })]);
  });

  it("re-sends a batch that was not acknowledged unchanged (same id), and cuts the key's later usage into the next batch", async () => {
    const recordUsage = jest
      .fn<Promise<void>, [UsageBatch]>()
      .mockRejectedValueOnce(grpcError(status.DEADLINE_EXCEEDED))
      .mockResolvedValue(undefined);
    const retrying = new UsageRecorder({ recordUsage } as unknown as UsageGateway, logger, 60_000);
    retrying.record("key-a", 3);
    await retrying.flush(1_000);
    retrying.record("key-a", 2);
    await retrying.flush(2_000);
    await retrying.flush(3_000);
    const sent = recordUsage.mock.calls.map(([batch]) => batch);
    expect(sent.map(({ keyID, atMs, requests, entities }) => [keyID, atMs, requests, entities])).toEqual([
      ["key-a", 1_000, 1, 3],
      ["key-a", 1_000, 1, 3],
      ["key-a", 3_000, 1, 2],
    ]);
    // The re-sent batch keeps its number; the next batch of the key is numbered next, from the same sender.
    expect(sent.map(({ sequence }) => sequence)).toEqual([1, 1, 2]);
    expect(new Set(sent.map(({ senderID }) => senderID)).size).toBe(1);
    expect(retrying.backlog).toEqual({ keys: 0, requests: 0 });
  });
});

describe("cached answers", () => {
  let version = "1";
  let loads = 0;
  let cached: ReturnType<Koa["callback"]>;
  const answering = (items: Uint8Array[]) => {
    behaviour = async () => {
      loads += 1;
      return { items, nextCursor: null };
    };
  };
  const big = Array.from({ length: 100 }, (_, i) => item({ widgetID: `widget-${i}`, padding: "x".repeat(40) }));
  /** The tagged routes' source: `source.current`, or unchanged to a load naming its tag; `named` holds each load's tag. */
  const taggedPages = () => {
    const named: (string | undefined)[] = [];
    const source: { current: RoutePage } = {
      current: { items: [item({ widgetID: "a" })], nextCursor: null, tag: "tag-a" },
    };
    taggedSource = async (heldTag) => {
      named.push(heldTag);
      const { current } = source;
      return heldTag === current.tag ? { items: [], nextCursor: null, tag: heldTag, unchanged: true } : current;
    };
    return { named, source };
  };

  beforeEach(() => {
    version = "1";
    loads = 0;
    cached = app({
      answers: { cache: new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 }), version: () => version },
    }).callback();
    answering([item({ widgetID: "a" }), item({ widgetID: "b" })]);
  });

  it("loads a query once per data version and answers the same bytes with a strong ETag", async () => {
    const first = await request(cached).get("/v2/widgets/?limit=5&leagueID=AFL").set("x-api-key", baseKey);
    // The same canonical query: parameters in another order, an unknown one ignored.
    const second = await request(cached).get("/v2/widgets/?leagueID=AFL&limit=5&unknown=1").set("x-api-key", baseKey);
    expect(loads).toBe(1);
    expect(second.text).toBe(first.text);
    expect(first.body.data).toEqual([{ widgetID: "a" }, { widgetID: "b" }]);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    version = "2";
    await request(cached).get("/v2/widgets/?limit=5&leagueID=AFL").set("x-api-key", baseKey);
    expect(loads).toBe(2);
  });

  it("keeps answers apart per route, query and plan scope", async () => {
    await request(cached).get("/v2/widgets/?limit=5").set("x-api-key", baseKey);
    await request(cached).get("/v2/widgets/?limit=6").set("x-api-key", baseKey);
    await request(cached).get("/v2/odds/history/?limit=5").set("x-api-key", baseKey);
    const lite = key("lite");
    fakeUsage.add(lite, "lite");
    expect((await request(cached).get("/v2/widgets/?limit=5").set("x-api-key", lite)).status).toBe(200);
    expect(loads).toBe(4);
    // Another key on the same plan shares the answer.
    const sameTier = key("base");
    fakeUsage.add(sameTier, "base");
    await request(cached).get("/v2/widgets/?limit=5").set("x-api-key", sameTier);
    expect(loads).toBe(4);
  });

  it("answers 304 without a body to If-None-Match, per representation", async () => {
    answering(big);
    const plain = await request(cached)
      .get("/v2/widgets/")
      .set("x-api-key", baseKey)
      .set("Accept-Encoding", "identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const gzip = await request(cached).get("/v2/widgets/").set("x-api-key", baseKey).set("Accept-Encoding", "gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.body.data).toHaveLength(100);
    expect(gzip.headers.etag).not.toBe(plain.headers.etag);
    const br = await request(cached).get("/v2/widgets/").set("x-api-key", baseKey).set("Accept-Encoding", "br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.body.data).toHaveLength(100);
    expect(br.headers.vary).toMatch(/Accept-Encoding/);

    const conditional = (encoding: string) =>
      request(cached)
        .get("/v2/widgets/")
        .set("x-api-key", baseKey)
        .set("Accept-Encoding", encoding)
        .set("If-None-Match", gzip.headers.etag!);
    const revalidated = await conditional("gzip");
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
    // The gzip validator does not match the identity representation.
    expect((await conditional("identity")).status).toBe(200);
    expect(loads).toBe(1);
  });

  it("shares one load among concurrent misses of the same query", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    behaviour = async () => {
      loads += 1;
      await gate;
      return { items: [item({ widgetID: "a" })], nextCursor: null };
    };
    const pending = Array.from({ length: 10 }, () =>
      request(cached)
        .get("/v2/widgets/?limit=7")
        .set("x-api-key", baseKey)
        .then((res) => res),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const answers = await Promise.all(pending);
    expect(answers.every((res) => res.status === 200 && res.body.data.length === 1)).toBe(true);
    expect(loads).toBe(1);
  });

  it("applies rate limits, entities and usage to cached answers as to fresh ones", async () => {
    const limited = key("lite");
    fakeUsage.add(limited, "lite", { limits: [{ window: "per-hour", maxRequests: 100, maxEntities: 3 }] });
    answering([item({ widgetID: "a" }), item({ widgetID: "b" })]);
    await request(cached).get("/v2/widgets/").set("x-api-key", liteKey);
    // Cached now; the limited key still pays 2 entities per answer and is refused at 3.
    expect((await request(cached).get("/v2/widgets/").set("x-api-key", limited)).status).toBe(200);
    expect((await request(cached).get("/v2/widgets/").set("x-api-key", limited)).status).toBe(200);
    const refused = await request(cached).get("/v2/widgets/").set("x-api-key", limited);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(loads).toBe(1);

    const counted = key("base");
    const keyID = fakeUsage.add(counted, "base");
    await request(cached).get("/v2/widgets/").set("x-api-key", counted);
    await request(cached).get("/v2/widgets/").set("x-api-key", counted);
    await recorder.flush();
    expect(fakeUsage.recorded.filter((entry) => entry.keyId === keyID)).toEqual([
      expect.objectContaining({ requests: 2, entities: 4 }),
    ]);
  });

  it("serves an answer no longer than its max age, whatever the version", async () => {
    const shortLived = app({
      // Long enough that two requests fit inside it on a loaded machine.
      answers: { cache: new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 3_000 }), version: () => "1" },
    }).callback();
    await request(shortLived).get("/v2/widgets/").set("x-api-key", baseKey);
    await request(shortLived).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(loads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await request(shortLived).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(loads).toBe(2);
  });

  it("renews a polled answer in the background before its max age; hits meanwhile get the kept one", async () => {
    const renewing = renewingApp();
    const first = await request(renewing).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(first.body.data).toEqual([{ widgetID: "a" }, { widgetID: "b" }]);
    answering([item({ widgetID: "c" })]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Served at once from the kept answer; its reload runs behind it.
    const kept = await request(renewing).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(kept.body.data).toEqual([{ widgetID: "a" }, { widgetID: "b" }]);
    for (let waited = 0; loads < 2 && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(loads).toBe(2);
    const renewed = await request(renewing).get("/v2/widgets/").set("x-api-key", baseKey);
    expect(renewed.body.data).toEqual([{ widgetID: "c" }]);
    expect(renewed.headers.etag).not.toBe(first.headers.etag);
  });

  it.each([
    ["/v2/tagged/", "x-api-key", baseKey],
    ["/v1/tagged", "Authorization", `Bearer ${baseKey}`],
  ])(
    "renews a polled answer of %s by naming its page's tag: an unchanged page is not sent again, a changed one is",
    async (path, header, credential) => {
      const renewing = renewingApp();
      const { named, source } = taggedPages();
      const get = () => request(renewing).get(path).set(header, credential);
      const renewedAfterHit = async (loads: number) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        await get();
        for (let waited = 0; named.length < loads && waited < 5_000; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(named).toHaveLength(loads);
      };

      const first = await get();
      expect(first.body.data).toEqual([{ widgetID: "a" }]);
      await renewedAfterHit(2);
      expect(named).toEqual([undefined, "tag-a"]);
      const unchanged = await get();
      expect(unchanged.body.data).toEqual([{ widgetID: "a" }]);
      expect(unchanged.headers.etag).toBe(first.headers.etag);

      source.current = { items: [item({ widgetID: "b" })], nextCursor: null, tag: "tag-b" };
      await renewedAfterHit(3);
      expect(named[2]).toBe("tag-a");
      const changed = await get();
      expect(changed.body.data).toEqual([{ widgetID: "b" }]);
      expect(changed.headers.etag).not.toBe(first.headers.etag);
      // The renewed answer carries the new page's tag.
      await renewedAfterHit(4);
      expect(named[3]).toBe("tag-b");
    },
  );

  it.each([
    ["/v2/tagged/", "x-api-key", baseKey],
    ["/v1/tagged", "Authorization", `Bearer ${baseKey}`],
  ])(
    "under a new data version, renews %s by naming its page's tag: a page the version left as it was is not sent again",
    async (path, header, credential) => {
      const { named, source } = taggedPages();
      const get = () => request(cached).get(path).set(header, credential);
      const first = await get();
      expect(first.body.data).toEqual([{ widgetID: "a" }]);
      version = "2";
      const confirmed = await get();
      expect(named).toEqual([undefined, "tag-a"]);
      expect(confirmed.body.data).toEqual([{ widgetID: "a" }]);
      expect(confirmed.headers.etag).toBe(first.headers.etag);
      // Confirmed under version 2: served again without a load.
      await get();
      expect(named).toHaveLength(2);
      // Version 3 changed the page: the request waits for it and never gets the page of version 2.
      source.current = { items: [item({ widgetID: "b" })], nextCursor: null, tag: "tag-b" };
      version = "3";
      const changed = await get();
      expect(named).toEqual([undefined, "tag-a", "tag-a"]);
      expect(changed.body.data).toEqual([{ widgetID: "b" }]);
      expect(changed.headers.etag).not.toBe(first.headers.etag);
    },
  );

  it.each([
    ["/v2/tagged/", "x-api-key", baseKey],
    ["/v1/tagged", "Authorization", `Bearer ${baseKey}`],
  ])(
    "serves %s renewed in parts, sharing its unchanged items, as the same bytes, length, ETag and encodings",
    async (path, header, credential) => {
      const { source } = taggedPages();
      // 24 items of 10 KB: large enough to share (64 KiB of items, 4 KB each on average).
      const widgets = (changed: number) =>
        Array.from({ length: 24 }, (_, i) => ({
          widgetID: `w-${i}`,
          price: i === changed ? 2 : 1,
          pad: "x".repeat(10_000),
        }));
      source.current = { items: widgets(-1).map(item), nextCursor: null, tag: "tag-1" };
      const get = (encoding = "identity") =>
        request(cached).get(path).set(header, credential).set("Accept-Encoding", encoding);
      expect((await get()).body.data).toEqual(widgets(-1));
      const shared = () => countedBy("edge_answer_renderings_total", "kind", "shared");
      const sharedBefore = await shared();

      source.current = { items: widgets(5).map(item), nextCursor: null, tag: "tag-2" };
      version = "2";
      const renewed = await get();
      expect(await shared()).toBe(sharedBefore + 1);
      expect(renewed.body.data).toEqual(widgets(5));
      const bytes = Buffer.from(renewed.text);
      expect(Number(renewed.headers["content-length"])).toBe(bytes.length);
      expect(renewed.headers.etag).toBe(`"${contentTag(bytes)}"`);
      const gzip = await get("gzip");
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(gzip.text).toBe(renewed.text);
      expect(gzip.headers.etag).toBe(`"${contentTag(bytes)}-gzip"`);
      const head = await request(cached).head(path).set(header, credential).set("Accept-Encoding", "identity");
      expect(head.status).toBe(200);
      expect(head.headers["content-length"]).toBe(String(bytes.length));
      const revalidated = await get().set("If-None-Match", renewed.headers.etag!);
      expect(revalidated.status).toBe(304);
    },
  );

  it("renews /v2/tagged/ naming the items it holds: its source leaves them out, and the answer is the whole page", async () => {
    // 24 items of 10 KB: large enough to share (64 KiB of items, 4 KB each on average).
    const widgets = (changed: readonly number[]) =>
      Array.from({ length: 24 }, (_, i) => ({
        widgetID: `w-${i}`,
        price: changed.includes(i) ? 2 : 1,
        pad: "x".repeat(10_000),
      }));
    const tagsOf = (page: { widgetID: string; price: number }[]) => page.map((w) => `${w.widgetID}@${w.price}`);
    let current = { widgets: widgets([]), tag: "tag-1" };
    const loads: { heldItemTags: readonly string[]; sent: number }[] = [];
    taggedSource = async (heldTag, heldItemTags = []) => {
      const itemTags = tagsOf(current.widgets);
      if (heldTag === current.tag) return { items: [], nextCursor: null, tag: heldTag, unchanged: true };
      const items = current.widgets.map((w, i) => (heldItemTags.includes(itemTags[i]!) ? Buffer.alloc(0) : item(w)));
      loads.push({ heldItemTags, sent: items.filter((bytes) => bytes.length > 0).length });
      return { items, itemTags, nextCursor: null, tag: current.tag };
    };
    const getFrom = (server: typeof cached) =>
      request(server).get("/v2/tagged/").set("x-api-key", baseKey).set("Accept-Encoding", "identity");
    const get = () => getFrom(cached);
    const first = await get();
    expect(first.body.data).toEqual(widgets([]));
    expect(loads).toEqual([{ heldItemTags: [], sent: 24 }]);
    let previousTag = first.headers.etag;

    // One widget changes under each new version: only it crosses, and the next renewal names the renewed items.
    for (const [changed, version_] of [
      [[5], "2"],
      [[5, 7], "3"],
    ] as const) {
      const heldTags = tagsOf(current.widgets);
      current = { widgets: widgets(changed), tag: `tag-${version_}` };
      version = version_;
      const renewed = await get();
      expect(loads.at(-1)).toEqual({ heldItemTags: heldTags, sent: 1 });
      expect(renewed.body.data).toEqual(widgets(changed));
      const bytes = Buffer.from(renewed.text);
      expect(Number(renewed.headers["content-length"])).toBe(bytes.length);
      // Its ETag names these bytes: another version's differs, and an edge that loads the page whole (its first load,
      // no item held) gives the same bytes the same ETag; the ETag revalidates.
      expect(renewed.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(renewed.headers.etag).not.toBe(previousTag);
      previousTag = renewed.headers.etag;
      const anotherEdge = app({
        answers: { cache: new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 }), version: () => version },
      }).callback();
      const whole = await getFrom(anotherEdge);
      expect(loads.at(-1)).toEqual({ heldItemTags: [], sent: 24 });
      expect(whole.text).toBe(renewed.text);
      expect(whole.headers.etag).toBe(renewed.headers.etag);
      expect((await get().set("If-None-Match", renewed.headers.etag!)).status).toBe(304);
    }
  });

  it("keeps a page of more than half the cache's bound (its encodings are counted at a quarter of it)", async () => {
    // About 600 KB against a 1 MB bound.
    answering(Array.from({ length: 60 }, (_, i) => item({ widgetID: `big-${i}`, padding: "x".repeat(10_000) })));
    const first = await request(cached).get("/v2/widgets/?limit=60").set("x-api-key", baseKey);
    expect(first.body.data).toHaveLength(60);
    await request(cached).get("/v2/widgets/?limit=60").set("x-api-key", baseKey).set("Accept-Encoding", "gzip");
    await request(cached).get("/v2/widgets/?limit=60").set("x-api-key", baseKey);
    expect(loads).toBe(1);
  });

  it("does not cache failures", async () => {
    behaviour = async () => {
      loads += 1;
      throw grpcError(13, "boom");
    };
    expect((await request(cached).get("/v2/widgets/?limit=9").set("x-api-key", baseKey)).status).toBe(500);
    expect((await request(cached).get("/v2/widgets/?limit=9").set("x-api-key", baseKey)).status).toBe(500);
    expect(loads).toBe(2);
  });
});
