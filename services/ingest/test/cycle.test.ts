// Ingest cycles against an in-process gRPC server that implements the three write services and
// records every request (the write path touches no store of ingest's own: this is the real
// client, wire and retry path).
import { catalogue, events, history } from "@odds/proto";
import { startGrpcServer, unaryHandler, UnavailableError, type RunningGrpcServer } from "@odds/platform";
import pino from "pino";
import { backfillCycleId, backfillFinished, runBackfill } from "../src/backfill";
import { BACKFILL_BATCH_LIMITS, cycleIdAt, DEFAULT_BATCH_LIMITS, eventBatches } from "../src/cycle-runner";
import { CycleRunner } from "../src/cycle-runner";
import { normaliseCycle } from "../src/domain/normalise";
import { contentFingerprint } from "../src/domain/observation-stamps";
import type { FeedSource } from "../src/sources/feed-source";
import { DEFAULT_SOURCES_FILE, loadSources } from "../src/sources/sources-file";
import { SportsGameOddsSource } from "../src/sources/sportsgameodds/sgo-source";
import { GrpcCycleSink } from "../src/writers/grpc-sink";
import { applyCatalogueRequest, eventMessage, recordQuotesRequest } from "../src/writers/messages";
import { FIXTURE_KEYS, UpstreamFixtureServer } from "../../../test/support/upstream/fixture-server";

const logger = pino({ level: "silent" });

// Each cycle simulates the whole deep feed (CPU-bound, seconds on an idle core and over a minute on a machine
// loaded tenfold, as a fresh-clone CI run beside three builds was): the tests build as few cycles as they need, and
// the timeout guards against a hang, not for speed (a test timed out at 240 s there and its late calls spilled
// into the next test's recordings).
jest.setTimeout(900_000);
const FAIR = ["pinnacle", "betfair_ex_au"];
const AT = new Date("2026-11-21T09:00:00Z");
const NEXT = new Date("2026-11-21T09:02:00Z");
const LATER = new Date("2026-11-21T09:04:00Z");

/** What the downstream services received, and failures to inject. */
class RecordingServices {
  applyCycle: events.ApplyCycleRequest[] = [];
  recordQuotes: history.RecordQuotesRequest[] = [];
  applyCatalogue: catalogue.ApplyCatalogueRequest[] = [];
  failing = { events: 0, history: 0, catalogue: 0 };
  lastCycleAtMs = 0;
  lastCycleId = "";
  /** Events the events service answers it does not hold when they come as stamps alone (a reset store). */
  notHeld = new Set<string>();
  /** Events answers this many more calls, then fails every one (ingest stopped mid-write); undefined: never. */
  eventsCallsBeforeCut: number | undefined;
  /**
   * Events answers a call of a cycle's several (`#k/n`, k < n - 1, or `#k`, a call sent while the cycle is
   * still built) only once the next call arrived (or after 10 s): a caller that waits for each answer
   * before it sends the next waits 10 s a call and never has two in flight. What it saw: calls in flight
   * at once.
   */
  eventsHoldForNext = false;
  private waitingForNext: (() => void)[] = [];
  eventsInFlight = 0;
  eventsMostInFlight = 0;
  /** Per events call in arrival order: its id, and whether no other call was in flight when it arrived. */
  eventsArrivals: { cycleId: string; alone: boolean }[] = [];

  private failIfAsked(target: keyof RecordingServices["failing"]): void {
    if (this.failing[target] > 0) {
      this.failing[target] -= 1;
      throw new UnavailableError(`${target} is down (test)`);
    }
  }

  bindings() {
    const eventsImpl: events.EventsServiceServer = {
      listEvents: unaryHandler(logger, async () => ({ items: [], nextCursor: "", notice: "" })),
      applyCycle: unaryHandler(logger, async (request: events.ApplyCycleRequest) => {
        this.failIfAsked("events");
        if (this.eventsCallsBeforeCut === 0) throw new UnavailableError("events cut off (test)");
        if (this.eventsCallsBeforeCut !== undefined) this.eventsCallsBeforeCut -= 1;
        this.eventsArrivals.push({ cycleId: request.cycleId, alone: this.eventsInFlight === 0 });
        this.eventsInFlight += 1;
        this.eventsMostInFlight = Math.max(this.eventsMostInFlight, this.eventsInFlight);
        for (const release of this.waitingForNext.splice(0)) release();
        const [, k, n] = /#(\d+)(?:\/(\d+))?$/.exec(request.cycleId) ?? [];
        try {
          if (this.eventsHoldForNext && k !== undefined && (n === undefined || Number(k) < Number(n) - 1)) {
            await new Promise<void>((resolve) => {
              this.waitingForNext.push(resolve);
              setTimeout(resolve, 10_000);
            });
          }
        } finally {
          this.eventsInFlight -= 1;
        }
        this.applyCycle.push(request);
        this.lastCycleAtMs = request.observedAtMs;
        this.lastCycleId = request.cycleId;
        const unknownEventIds = request.restamped.map((s) => s.eventId).filter((id) => this.notHeld.has(id));
        return { upserted: request.events.length, unchanged: request.restamped.length, unknownEventIds };
      }),
      getFeedStatus: unaryHandler(logger, async () => ({
        lastCycleAtMs: this.lastCycleAtMs,
        eventCount: 0,
        lastCycleId: this.lastCycleId,
        lastCycleObservedAtMs: this.lastCycleAtMs,
      })),
    };
    const historyImpl: Pick<history.HistoryServiceServer, "recordQuotes"> = {
      recordQuotes: unaryHandler(logger, async (request: history.RecordQuotesRequest) => {
        this.failIfAsked("history");
        this.recordQuotes.push(request);
        return { ticksRecorded: 0 };
      }),
    };
    const catalogueImpl: Pick<catalogue.CatalogueServiceServer, "applyCatalogue"> = {
      applyCatalogue: unaryHandler(logger, async (request: catalogue.ApplyCatalogueRequest) => {
        this.failIfAsked("catalogue");
        this.applyCatalogue.push(request);
        return {};
      }),
    };
    return [
      { name: "odds.events.v1.EventsService", definition: events.EventsServiceService, implementation: eventsImpl },
      {
        name: "odds.history.v1.HistoryService",
        definition: history.HistoryServiceService,
        implementation: historyImpl,
      },
      {
        name: "odds.catalogue.v1.PersistedCatalogue",
        definition: catalogue.CatalogueServiceService,
        implementation: catalogueImpl,
      },
    ];
  }

  clear(): void {
    this.eventsArrivals = [];
    this.eventsMostInFlight = 0;
    this.applyCycle = [];
    this.recordQuotes = [];
    this.applyCatalogue = [];
  }
}

/**
 * The write calls' deadline. Client and recording server share this test's one event loop, so a cycle's
 * synchronous building delays the server's handling of calls in flight: on a machine loaded tenfold a 30 s
 * deadline expired and the calls were (rightly) left pending. Production's default is 300 s.
 */
const WRITE_DEADLINE_MS = 120_000;

/**
 * The three write services recorded by one in-process gRPC server, and a sink pointed at it with production's
 * attempts (3). Client and server share this process, so on a loaded machine a keepalive ping can go unanswered
 * while it encodes or decodes a cycle's calls: the connection drops and the calls in flight fail UNAVAILABLE
 * ("Connection dropped"), which grpc-js cannot retry for messages past its retry buffer. With a single attempt
 * that failed these tests at a load average of 20; production retries it, and so do they.
 */
async function startRecordingTargets(): Promise<{
  services: RecordingServices;
  sink: GrpcCycleSink;
  stop: () => Promise<void>;
}> {
  const services = new RecordingServices();
  const server: RunningGrpcServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: services.bindings(),
  });
  const addr = `127.0.0.1:${server.port}`;
  const sink = new GrpcCycleSink({
    eventsAddr: addr,
    historyAddr: addr,
    catalogueAddr: addr,
    deadlineMs: WRITE_DEADLINE_MS,
  });
  return {
    services,
    sink,
    stop: async () => {
      sink.close();
      await server.shutdown(1_000);
    },
  };
}

describe("ingest cycles over gRPC", () => {
  let services: RecordingServices;
  let sink: GrpcCycleSink;
  let stop: () => Promise<void>;
  let sources: FeedSource[];
  const runner = () => new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR });

  beforeAll(async () => {
    ({ services, sink, stop } = await startRecordingTargets());
    sources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: [] });
  });

  afterAll(() => stop());

  beforeEach(() => {
    services.clear();
    services.failing = { events: 0, history: 0, catalogue: 0 };
  });

  test("a cycle sends every event with its priced odds, each bookmaker's quotes per source, and the catalogue", async () => {
    const report = await runner().runCycle(AT);
    expect(report.pending).toEqual({ history: 0, events: 0, catalogue: 0 });

    const sent = services.applyCycle.flatMap((r) => r.events);
    expect(services.applyCycle.every((r) => r.cycleId.startsWith("cycle-2026-11-21T09:00:00.000Z"))).toBe(true);
    expect(new Set(sent.map((e) => e.leagueId))).toEqual(
      new Set(["AFL", "NRL", "A_LEAGUE", "EPL", "BBL", "IPL", "ATP", "UFC"]),
    );
    const priced = sent.find((e) => Object.keys(e.odds).length > 40) as events.Event;
    const ml = priced.odds["points-home-game-ml-home"] as events.Odds;
    expect(ml.bookOdds).toMatch(/^[+-]\d+$/);
    expect(ml.fairOdds).toMatch(/^[+-]\d+$/);
    expect(Object.keys(ml.byBookmaker).length).toBeGreaterThan(3);
    expect(Object.values(priced.odds).some((o) => Object.keys(o.altLines).length > 0)).toBe(true);
    expect(Object.keys(priced.links?.bookmakers ?? {}).length).toBeGreaterThan(3);

    const snapshots = services.recordQuotes.flatMap((r) => r.snapshots);
    expect(snapshots.length).toBe(report.snapshots);
    const betfairSources = new Set(
      snapshots.filter((s) => s.bookmakerId === "betfair_ex_au").map((s) => `${s.sourceId}:${s.sourceRank}`),
    );
    expect(betfairSources).toEqual(new Set(["sim-aggregator:10", "sim-betfair-stream:20"]));
    const refs = new Set(services.recordQuotes.flatMap((r) => r.events.map((e) => e.eventId)));
    expect(snapshots.every((s) => refs.has(s.eventId))).toBe(true);

    const [catalogueRequest] = services.applyCatalogue;
    expect(catalogueRequest?.leagues.map((l) => l.leagueId).sort()).toEqual([
      "AFL",
      "ATP",
      "A_LEAGUE",
      "BBL",
      "EPL",
      "IPL",
      "NRL",
      "UFC",
    ]);
    expect(catalogueRequest?.teams.some((t) => t.teamId === "COLLINGWOOD_MAGPIES_AFL")).toBe(true);
    expect(catalogueRequest?.events.length).toBe(sent.length);
  });

  test("replaying the same cycle sends identical payloads under the same cycle id", async () => {
    await runner().runCycle(AT);
    const first = { events: services.applyCycle, history: services.recordQuotes, catalogue: services.applyCatalogue };
    services.clear();
    await runner().runCycle(AT);
    // Events calls overlap (see below), so they may arrive in another order: the same calls all the same.
    const byId = (calls: events.ApplyCycleRequest[]) => [...calls].sort((a, b) => a.cycleId.localeCompare(b.cycleId));
    expect(byId(services.applyCycle)).toEqual(byId(first.events));
    expect(services.recordQuotes).toEqual(first.history);
    expect(services.applyCatalogue).toEqual(first.catalogue);
  });

  test("a cycle written while it is built sends what its whole snapshots hold: the same event calls, history's snapshots in the same order, the same catalogue", async () => {
    // Small calls, so the cycle's writes start long before its build ends.
    const limits = { ...DEFAULT_BATCH_LIMITS, eventsPerCall: 10, snapshotsPerCall: 40, quotesPerCall: 3000 };
    const report = await new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR, limits }).runCycle(AT);
    expect(report.pending).toEqual({ history: 0, events: 0, catalogue: 0 });

    // The same cycle from every source's whole snapshot, normalised at once.
    const snapshots = await Promise.all(
      sources.map(async (source) => ({
        sourceID: source.id,
        rank: source.rank,
        snapshot: await source.fetchSnapshot(AT),
      })),
    );
    const whole = normaliseCycle(snapshots, { fairOddsBookmakers: FAIR });
    const encoded = (event: events.Event) => Buffer.from(events.Event.encode(event).finish()).toString("base64");
    const callNumber = (r: events.ApplyCycleRequest) => Number(/#(\d+)/.exec(r.cycleId)?.[1] ?? 1);
    const sentCalls = [...services.applyCycle].sort((a, b) => callNumber(a) - callNumber(b));
    expect(sentCalls.map((r) => r.events.map(encoded))).toEqual(
      eventBatches(whole.events, limits).map((call) => call.map((e) => encoded(eventMessage(e)))),
    );
    expect(sentCalls.at(-1)?.cycleId).toBe(`${cycleIdAt(AT)}#${sentCalls.length}/${sentCalls.length}`);

    const snapshot = (s: history.BookSnapshot) =>
      Buffer.from(history.BookSnapshot.encode(s).finish()).toString("base64");
    expect(services.recordQuotes.flatMap((r) => r.snapshots.map(snapshot))).toEqual(
      recordQuotesRequest([], whole.observations).snapshots.map(snapshot),
    );
    expect(services.recordQuotes.length).toBeGreaterThan(3);
    for (const call of services.recordQuotes) {
      expect(call.snapshots.length).toBeLessThanOrEqual(2 * limits.snapshotsPerCall);
      expect(new Set(call.events.map((e) => e.eventId))).toEqual(new Set(call.snapshots.map((s) => s.eventId)));
    }

    expect(services.applyCatalogue).toEqual([
      catalogue.ApplyCatalogueRequest.decode(
        catalogue.ApplyCatalogueRequest.encode(applyCatalogueRequest(cycleIdAt(AT), whole.catalogue)).finish(),
      ),
    ]);
  });

  test("a later cycle sends whole only the events whose content changed; the rest go as their observation times, with the last call", async () => {
    const ingest = runner();
    const first = await ingest.runCycle(AT);
    services.clear();
    const second = await ingest.runCycle(NEXT);
    expect(second.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
    const whole = services.applyCycle.flatMap((r) => r.events);
    const stamped = services.applyCycle.flatMap((r) => r.restamped);
    expect(second.eventsChanged).toBe(whole.length);
    expect(stamped.length).toBeGreaterThan(0);
    expect(whole.length + stamped.length).toBe(second.events);
    expect(new Set([...whole.map((e) => e.eventId), ...stamped.map((s) => s.eventId)]).size).toBe(second.events);
    expect(services.applyCycle.slice(0, -1).every((r) => r.restamped.length === 0)).toBe(true);
    expect(stamped.every((s) => s.lastUpdatedAtMs === NEXT.getTime())).toBe(true);
    expect(stamped.every((s) => Object.values(s.bookmakerObservedAtMs).every((ms) => ms <= NEXT.getTime()))).toBe(true);

    // Which is which: the content (observation times aside) of each event at AT and at NEXT.
    const [atAT, atNEXT] = await Promise.all([runner().buildCycle(AT), runner().buildCycle(NEXT)]);
    const before = new Map(atAT.events.map((e) => [e.eventID, contentFingerprint(e)]));
    const after = new Map(atNEXT.events.map((e) => [e.eventID, contentFingerprint(e)]));
    expect(stamped.every((s) => before.get(s.eventId) === after.get(s.eventId))).toBe(true);
    expect(whole.every((e) => before.get(e.eventId) !== after.get(e.eventId))).toBe(true);
    expect(first.eventsChanged).toBe(first.events);
  });

  test("events calls overlap by one while events applies; the last, with the stamps, goes once every earlier one was answered", async () => {
    const ingest = new CycleRunner({
      sources,
      sink,
      logger,
      fairOddsBookmakers: FAIR,
      limits: { ...DEFAULT_BATCH_LIMITS, eventsPerCall: 10 },
    });
    services.eventsHoldForNext = true;
    try {
      for (const at of [AT, NEXT]) {
        services.clear();
        const report = await ingest.runCycle(at);
        expect(report.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
        const calls = services.eventsArrivals;
        expect(calls.length).toBeGreaterThan(3);
        // Two at once, never more: the next call is sent while the service still works on one (a caller
        // waiting for each answer has one in flight; two in flight may still arrive in either order).
        expect(services.eventsMostInFlight).toBe(2);
        expect(calls.slice(0, -1).filter((call) => !call.alone).length).toBeGreaterThan(0);
        // The cycle's last batch id (a backfill's done-marker) and the stamps arrive alone, after the rest.
        const last = services.applyCycle.at(-1) as events.ApplyCycleRequest;
        expect(last.cycleId).toBe(`${cycleIdAt(at)}#${calls.length}/${calls.length}`);
        expect(calls.at(-1)).toEqual({ cycleId: last.cycleId, alone: true });
        expect(services.applyCycle.slice(0, -1).every((r) => r.restamped.length === 0)).toBe(true);
        // Every event exactly once: whole or as its stamps.
        const sent = [
          ...services.applyCycle.flatMap((r) => r.events.map((e) => e.eventId)),
          ...last.restamped.map((s) => s.eventId),
        ];
        expect(new Set(sent).size).toBe(sent.length);
        expect(sent.length).toBe(report.events);
        expect(services.applyCycle.flatMap((r) => r.events)).toHaveLength(report.eventsChanged);
      }
    } finally {
      services.eventsHoldForNext = false;
    }
  });

  test("events the events service no longer holds are sent whole on the next cycle", async () => {
    const ingest = runner();
    await ingest.runCycle(AT);
    services.clear();
    services.notHeld = new Set((await runner().buildCycle(AT)).events.map((e) => e.eventID));
    await ingest.runCycle(NEXT);
    const forgotten = services.applyCycle.flatMap((r) => r.restamped).map((s) => s.eventId);
    expect(forgotten.length).toBeGreaterThan(0);
    services.notHeld.clear();
    services.clear();
    await ingest.runCycle(new Date(NEXT.getTime() + 120_000));
    const resent = new Set(services.applyCycle.flatMap((r) => r.events).map((e) => e.eventId));
    expect(forgotten.every((id) => resent.has(id))).toBe(true);
  });

  test("a transient failure is retried within the cycle and nothing stays pending", async () => {
    services.failing.history = 2;
    // grpc-js retries UNAVAILABLE by itself only for messages within its retry buffer (256 KiB); a cycle's
    // history call is larger, so the sink's own attempts (3, the production default) carry the retry.
    const report = await new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR }).runCycle(AT);
    expect(report.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
    expect(services.recordQuotes.flatMap((r) => r.snapshots).length).toBe(report.snapshots);
  });

  test("quotes that could not be written are sent first on the next cycle, in order; nothing is lost", async () => {
    const ingest = runner();
    services.failing.history = 1_000;
    const first = await ingest.runCycle(AT);
    // Each report counts the snapshots its cycle built: together they are what must arrive.
    const expected1 = first.snapshots;
    expect(expected1).toBeGreaterThan(0);
    expect(services.recordQuotes).toEqual([]);
    expect(first.pending.history).toBeGreaterThan(0);
    expect(services.applyCycle.length).toBeGreaterThan(0);
    expect(services.applyCatalogue.length).toBe(1);

    services.failing.history = 0;
    const second = await ingest.runCycle(NEXT);
    const expected2 = second.snapshots;
    expect(second.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
    const observed = services.recordQuotes.flatMap((r) => r.snapshots.map((s) => s.observedAtMs));
    expect(observed.length).toBe(expected1 + expected2);
    expect(observed.slice(0, expected1).every((ms) => ms <= AT.getTime())).toBe(true);
    expect(observed.slice(expected1).every((ms) => ms > AT.getTime() - 120_000)).toBe(true);
  });

  test("events that could not be written are re-sent with the next cycle's newer state", async () => {
    const ingest = runner();
    services.failing.events = 1_000;
    const first = await ingest.runCycle(AT);
    expect(first.pending.events).toBe(first.events);
    services.failing.events = 0;
    await ingest.runCycle(NEXT);
    const sent = services.applyCycle.flatMap((r) => r.events);
    expect(services.applyCycle.every((r) => r.cycleId.startsWith("cycle-2026-11-21T09:02:00.000Z"))).toBe(true);
    expect(sent.length).toBeGreaterThanOrEqual(first.events);
    expect(new Set(sent.map((e) => e.eventId)).size).toBe(sent.length);
  });

  test("a league whose source went quiet carries its last write time, so events can flag it stale", async () => {
    const quietSince = new Date(AT.getTime() - 50 * 60_000);
    const quietSources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: ["NRL"], quietSince });
    await new CycleRunner({ sources: quietSources, sink, logger, fairOddsBookmakers: FAIR }).runCycle(AT);
    const sent = services.applyCycle.flatMap((r) => r.events);
    const nrl = sent.filter((e) => e.leagueId === "NRL");
    expect(nrl.length).toBeGreaterThan(0);
    expect(nrl.every((e) => e.info?.lastUpdatedAtMs === quietSince.getTime())).toBe(true);
    expect(sent.filter((e) => e.leagueId === "AFL").every((e) => e.info?.lastUpdatedAtMs === AT.getTime())).toBe(true);
  });

  test("a real source that fails keeps its events as last fetched; a cycle with no fresh write applies nothing", async () => {
    const upstream = await new UpstreamFixtureServer().start();
    try {
      const sgo = new SportsGameOddsSource({
        id: "sgo",
        rank: 30,
        baseUrl: upstream.baseUrl,
        apiKey: FIXTURE_KEYS.sportsgameodds,
        leagues: [
          {
            leagueID: "AFL",
            sportID: "AUSSIE_RULES",
            sportName: "Aussie Rules",
            sportShortName: "AR",
            name: "AFL",
            shortName: "AFL",
          },
        ],
        pageLimit: 2,
        objectsPerMonth: 0,
        bookmakers: [],
        http: { timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20, requestsPerMinute: 0 },
      });
      const ingest = new CycleRunner({ sources: [sgo], sink, logger, fairOddsBookmakers: FAIR });
      const first = await ingest.runCycle(AT);
      expect(first.fresh).toBe(true);
      expect(first.upstream).toEqual({ sgo: { malformed_event: 1, unknown_market: 1, malformed_price: 1 } });
      expect(
        services.applyCycle
          .flatMap((r) => r.events)
          .map((e) => e.eventId)
          .sort(),
      ).toEqual(["Qv8TnR2mZs0bLx7cYe4J", "Zk3PwQ9aLm1NbVc5Xr7T", "n5cDs1Y4hB3uKqWd0aFl"]);
      services.clear();

      upstream.inject({ match: /\/v2\/events/, status: 503, times: 100 });
      const second = await ingest.runCycle(NEXT);
      // Nothing new: no write at all, so no event is dropped, no quote closed, and events' last cycle stops advancing.
      expect(second).toMatchObject({
        fresh: false,
        events: 3,
        upstream: { sgo: expect.objectContaining({ league_fetch_failed: 1 }) },
      });
      expect(services.applyCycle).toEqual([]);
      expect(services.recordQuotes).toEqual([]);
    } finally {
      await upstream.stop();
    }
  });

  test("backfill writes each book's history oldest first and the finished events, and is skipped once events applied a cycle", async () => {
    services.lastCycleAtMs = 0;
    const ingest = runner();
    const from = new Date(AT.getTime() - 5 * 86_400_000);
    const report = await runBackfill(
      { sources, sink, runner: ingest, logger, fairOddsBookmakers: FAIR },
      { lastApplied: await sink.lastAppliedCycle(), from, now: AT },
    );
    expect(report.skipped).toBe(false);
    const snapshots = services.recordQuotes.flatMap((r) => r.snapshots);
    expect(snapshots.length).toBe(report.snapshots);
    const byBook = new Map<string, number[]>();
    for (const s of snapshots) {
      const key = `${s.eventId}|${s.bookmakerId}|${s.sourceId}`;
      byBook.set(key, [...(byBook.get(key) ?? []), s.observedAtMs]);
    }
    for (const instants of byBook.values()) expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(Math.min(...snapshots.map((s) => s.observedAtMs))).toBeGreaterThanOrEqual(from.getTime());
    const finished = services.applyCycle.flatMap((r) => r.events);
    expect(finished.length).toBe(report.events);
    expect(finished.every((e) => e.status?.finalized || e.status?.cancelled)).toBe(true);

    services.clear();
    const again = await runBackfill(
      { sources, sink, runner: runner(), logger, fairOddsBookmakers: FAIR },
      { lastApplied: await sink.lastAppliedCycle(), from, now: AT },
    );
    expect(again.skipped).toBe(true);
    expect(services.recordQuotes).toEqual([]);
  });
});

describe("first start", () => {
  let services: RecordingServices;
  let sink: GrpcCycleSink;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ services, sink, stop } = await startRecordingTargets());
  });

  afterAll(() => stop());

  /** A runner whose events calls are small, so a cycle's events take several. */
  function smallCallsRunner(sources: FeedSource[]): CycleRunner {
    const limits = { ...DEFAULT_BATCH_LIMITS, eventsPerCall: 20 };
    return new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR, limits });
  }

  /** The events service as on an empty store: no cycle applied yet, nothing recorded. */
  function emptyStore(): void {
    services.clear();
    services.lastCycleAtMs = 0;
    services.lastCycleId = "";
  }

  /** A start at `at` (AT by default) backfilling from `from`, with `signal` to give up. */
  async function firstStart(
    sources: FeedSource[],
    runner: CycleRunner,
    from: Date,
    { at = AT, signal }: { at?: Date; signal?: AbortSignal } = {},
  ) {
    return runBackfill(
      { sources, sink, runner, logger, fairOddsBookmakers: FAIR },
      { lastApplied: await sink.lastAppliedCycle(), from, now: at, firstCycleAt: at, signal },
    );
  }

  /** A first start on an empty store with `target` down all along (grpc-js retries included): it gives up. */
  async function firstStartWithTargetDown(
    target: "history" | "catalogue",
    sources: FeedSource[],
    runner: CycleRunner,
    from: Date,
  ): Promise<void> {
    emptyStore();
    const stopped = new AbortController();
    stopped.abort();
    services.failing[target] = 1_000;
    try {
      await expect(firstStart(sources, runner, from, { signal: stopped.signal })).rejects.toThrow(
        /aborted before every write landed/,
      );
    } finally {
      services.failing[target] = 0;
    }
  }

  test("sends the first live cycle's quotes in the backfill's history calls and its events under the backfill's id", async () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: [] });
    const runner = smallCallsRunner(sources);
    const from = new Date(AT.getTime() - 3 * 86_400_000);
    const report = await firstStart(sources, runner, from);
    expect(report.firstCycleWritten).toBe(true);
    // As many calls as the backfill's limits make, together carrying every snapshot of the live cycle.
    const calls = services.recordQuotes;
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.snapshots.length).toBeLessThanOrEqual(2 * BACKFILL_BATCH_LIMITS.snapshotsPerCall);
      expect(call.snapshots.reduce((n, s) => n + s.quotes.length, 0)).toBeLessThanOrEqual(
        2 * BACKFILL_BATCH_LIMITS.quotesPerCall,
      );
    }
    const live = (await runner.buildCycle(AT)).observations.length;
    const sentLive = calls.flatMap((call) => call.snapshots).filter((s) => s.observedAtMs === AT.getTime());
    expect(sentLive.length).toBe(live);
    const sent = services.applyCycle.flatMap((r) => r.events);
    expect(sent.some((e) => e.status?.finalized)).toBe(true);
    expect(sent.some((e) => e.status?.oddsAvailable)).toBe(true);
    // A corrected event's first result goes before its final state; every call is under the backfill's ids.
    const isFirstResults = (r: events.ApplyCycleRequest) => r.cycleId.startsWith("backfill-first-results-");
    const firstResults = services.applyCycle.filter(isFirstResults);
    const rest = services.applyCycle.filter((r) => !isFirstResults(r));
    expect(firstResults.flatMap((r) => r.events).length).toBeGreaterThan(0);
    for (const call of firstResults) {
      for (const first of call.events) {
        expect(first.resultsCorrectedAtMs).toBe(0);
        const finals = services.applyCycle.flatMap((r, i) =>
          isFirstResults(r) ? [] : r.events.filter((e) => e.eventId === first.eventId).map((e) => ({ e, i })),
        );
        expect(finals).toHaveLength(1);
        expect(finals[0]!.e.resultsCorrectedAtMs).toBeGreaterThan(0);
        expect(finals[0]!.i).toBeGreaterThan(services.applyCycle.indexOf(call));
      }
    }
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((r) => r.cycleId.startsWith(backfillCycleId(from)))).toBe(true);
    // The live cycle's events go as they are built (`#k`), the done-marker (`#n/n`) last.
    expect(rest.filter((r) => /#\d+$/.test(r.cycleId)).length).toBeGreaterThan(1);
    expect(rest.slice(0, -1).every((r) => !backfillFinished({ atMs: 1, cycleID: r.cycleId }))).toBe(true);
    expect(backfillFinished({ atMs: services.lastCycleAtMs, cycleID: services.lastCycleId })).toBe(true);
  });

  test("the live cycle's events (the marker that it is done) go only after history took everything, so a restart redoes it", async () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: [] });
    const from = new Date(AT.getTime() - 2 * 86_400_000);
    await firstStartWithTargetDown(
      "history",
      sources,
      new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR }),
      from,
    );
    // Only the corrected events' first results (under the backfill's own id) may have reached events:
    // no live cycle, so the backfill does not count as finished.
    expect(services.applyCycle.every((r) => r.cycleId.startsWith("backfill-first-results-"))).toBe(true);
    expect(backfillFinished({ atMs: services.lastCycleAtMs, cycleID: services.lastCycleId })).toBe(false);
    expect(services.recordQuotes.length).toBe(0);

    const report = await firstStart(
      sources,
      new CycleRunner({ sources, sink, logger, fairOddsBookmakers: FAIR }),
      from,
    );
    expect([report.skipped, report.firstCycleWritten]).toEqual([false, true]);
    expect(services.recordQuotes.flatMap((r) => r.snapshots)).toHaveLength(report.snapshots);
    expect(services.applyCycle.length).toBeGreaterThan(0);
  });

  test("with the catalogue down, the live cycle's events go as they are built but not the done-marker: a restart redoes the backfill", async () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: [] });
    const from = new Date(AT.getTime() - 2 * 86_400_000);
    await firstStartWithTargetDown("catalogue", sources, smallCallsRunner(sources), from);
    // History took the replay and the live cycle; events took the live cycle's calls sent while it was built.
    expect(services.recordQuotes.flatMap((r) => r.snapshots).some((s) => s.observedAtMs === AT.getTime())).toBe(true);
    const streamed = services.applyCycle.filter((r) => r.cycleId.startsWith(`${backfillCycleId(from)}#`));
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.every((r) => /#\d+$/.test(r.cycleId))).toBe(true);
    expect(backfillFinished({ atMs: services.lastCycleAtMs, cycleID: services.lastCycleId })).toBe(false);

    services.clear();
    const report = await firstStart(sources, smallCallsRunner(sources), from);
    expect([report.skipped, report.firstCycleWritten]).toEqual([false, true]);
    expect(services.applyCatalogue).toHaveLength(1);
    expect(backfillFinished({ atMs: services.lastCycleAtMs, cycleID: services.lastCycleId })).toBe(true);
  });

  test("a regular cycle cut after events batch k of n is not taken for an unfinished backfill: the restart skips it and the next cycle sends every event whole", async () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, { seed: "service-test", quietLeagues: [] });
    const from = new Date(AT.getTime() - 2 * 86_400_000);
    const ingest = () => smallCallsRunner(sources);
    emptyStore();
    expect((await firstStart(sources, ingest(), from)).skipped).toBe(false);

    // A fresh runner sends every event whole: its cycle at NEXT is cut after the first events call of several.
    services.clear();
    services.eventsCallsBeforeCut = 1;
    const cut = await ingest().runCycle(NEXT);
    services.eventsCallsBeforeCut = undefined;
    expect(cut.pending.events).toBeGreaterThan(0);
    // A call sent while the cycle is built carries `#k` (the count is known only at its end); any other `#k/n`, k < n.
    const [, k, n] = /#(\d+)(?:\/(\d+))?$/.exec(services.lastCycleId) ?? [];
    expect(services.lastCycleId.startsWith("cycle-2026-11-21T09:02:00.000Z#")).toBe(true);
    expect(k).toBeDefined();
    if (n !== undefined) expect(Number(k)).toBeLessThan(Number(n));

    // Restarted: the backfill is skipped, nothing of it written again; the next cycle writes every event.
    services.clear();
    const restarted = ingest();
    const report = await firstStart(sources, restarted, from, { at: LATER });
    expect(report.skipped).toBe(true);
    expect([services.recordQuotes, services.applyCycle, services.applyCatalogue]).toEqual([[], [], []]);
    const next = await restarted.runCycle(LATER);
    // Every call the cut cycle sent had landed or failed when it returned: none of it arrives late.
    const late = services.applyCycle.map((r) => r.cycleId).filter((id) => !id.startsWith("cycle-2026-11-21T09:04:00"));
    expect(late).toEqual([]);
    expect(next.pending).toEqual({ history: 0, events: 0, catalogue: 0 });
    expect(next.eventsChanged).toBe(next.events);
    expect(services.applyCycle.flatMap((r) => r.events)).toHaveLength(next.events);
    expect(services.lastCycleId).toMatch(/^cycle-2026-11-21T09:04:00.000Z#(\d+)\/\1$/);
  });
});
