import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  logPath,
  REPO_ROOT,
  serviceMallocEnv,
  spawnManaged,
  startFerretDb,
  waitUntil,
  type Interruption,
} from "@odds/local";
import { callUnary, createGrpcClient } from "@odds/platform";
import { common, events } from "@odds/proto";
import { percentile } from "../support/percentile";
import { peakRssMb } from "./peak-rss";

/**
 * Hot read path of GET /v2/events/: the events service as a real process over a real FerretDB,
 * loaded with a generated cycle, timed through a real gRPC client (what the edge does per request).
 */

const BOOKMAKERS = [
  "sportsbet",
  "tab",
  "ladbrokes_au",
  "neds",
  "pointsbet_au",
  "betr",
  "bet365_au",
  "unibet_au",
  "pinnacle",
  "betfair_ex_au",
];
const LEAGUES = [
  ["AFL", "AUSSIE_RULES"],
  ["NRL", "RUGBY_LEAGUE"],
  ["EPL", "SOCCER"],
  ["A_LEAGUE", "SOCCER"],
  ["BBL", "CRICKET"],
  ["IPL", "CRICKET"],
] as const;
const EVENT_COUNT = Number(process.env.BENCH_EVENTS ?? 300);
const SIDES_PER_EVENT = 60;

function american(decimal: number): string {
  return decimal >= 2 ? `+${Math.round((decimal - 1) * 100)}` : `${Math.round(-100 / (decimal - 1))}`;
}

function generatedEvent(i: number, nowMs: number, tick: number): events.Event {
  const [leagueId, sportId] = LEAGUES[i % LEAGUES.length]!;
  const odds: Record<string, events.Odds> = {};
  for (let m = 0; m < SIDES_PER_EVENT / 2; m++) {
    for (const sideId of ["over", "under"]) {
      const oddId = `stat${m}-all-game-ou-${sideId}`;
      const byBookmaker: Record<string, events.BookmakerOdds> = {};
      for (const [b, bookmakerId] of BOOKMAKERS.entries()) {
        const decimal = 1.8 + ((i * 7 + m * 3 + b + tick) % 20) / 100;
        byBookmaker[bookmakerId] = events.BookmakerOdds.create({
          bookmakerId,
          odds: american(decimal),
          decimal,
          overUnder: "45.5",
          available: true,
          lastUpdatedAtMs: nowMs,
          eventName: `Home ${i} v Away ${i}`,
          deeplink: `https://${bookmakerId}.example/event/${i}/market/${m}`,
        });
      }
      const altLines: Record<string, events.AltLine> =
        m < 4 ? { "40.5": { byBookmaker: { tab: byBookmaker.tab!, pinnacle: byBookmaker.pinnacle! } } } : {};
      odds[oddId] = events.Odds.create({
        oddId,
        opposingOddId: `stat${m}-all-game-ou-${sideId === "over" ? "under" : "over"}`,
        marketName: `Stat ${m} over/under`,
        statId: `stat${m}`,
        statEntityId: "all",
        periodId: "game",
        betTypeId: "ou",
        sideId,
        bookOdds: "-110",
        bookOddsAvailable: true,
        bookOverUnder: "45.5",
        fairOdds: "+100",
        fairOddsAvailable: true,
        fairOverUnder: "45.5",
        scoringSupported: true,
        byBookmaker,
        altLines,
      });
    }
  }
  const startsAtMs = nowMs + (i - EVENT_COUNT / 3) * 15 * 60_000;
  return events.Event.create({
    eventId: `${leagueId.toLowerCase()}_bench_${String(i).padStart(4, "0")}`,
    sportId,
    leagueId,
    type: "match",
    status: events.EventStatus.create({
      startsAtMs,
      started: startsAtMs < nowMs,
      oddsPresent: true,
      oddsAvailable: true,
    }),
    info: events.EventInfo.create({
      displayName: `Home ${i} vs Away ${i}`,
      commenceTimeMs: startsAtMs,
      lastUpdatedAtMs: nowMs,
      bookmakersPresent: BOOKMAKERS,
      sourceBookmakerCount: BOOKMAKERS.length,
    }),
    home: events.EventTeam.create({ teamId: `HOME_${i}_${leagueId}`, statEntityId: "home" }),
    away: events.EventTeam.create({ teamId: `AWAY_${i}_${leagueId}`, statEntityId: "away" }),
    odds,
  });
}

/**
 * Reads one after another while `work` runs, each timed: how long an apply keeps a read of the same
 * service waiting (its decode and rendering run on the event loop that answers reads).
 */
async function readsBeside<T>(
  work: Promise<T>,
  read: () => Promise<unknown>,
): Promise<{ result: T; latencies: number[] }> {
  let done = false;
  const latencies: number[] = [];
  const reading = (async () => {
    while (!done) {
      const started = process.hrtime.bigint();
      await read();
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  })();
  try {
    await work;
  } finally {
    done = true;
    await reading;
  }
  return { result: await work, latencies: latencies.sort((a, b) => a - b) };
}

export async function runEventsBench(report: (line: string) => void, interruption: Interruption): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "odds-bench-events-"));
  const [mongoPort, grpcPort] = await Promise.all([freePort(), freePort()]);
  const mongo = await startFerretDb({
    port: mongoPort,
    dataDir: join(dataDir, "ferretdb"),
    logFile: logPath(dataDir, "ferretdb"),
    signal: interruption.signal,
  });
  const replicaPort = await freePort();
  /** An events service on the bench's FerretDB: the one applies are sent to, or a replica loading them from the store. */
  const startEvents = (name: string, port: number, extraEnv: Record<string, string> = {}) =>
    spawnManaged(
      name,
      process.execPath,
      [
        ...(process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean),
        join(REPO_ROOT, "services", "events", "dist", "main.js"),
      ],
      {
        cwd: REPO_ROOT,
        logFile: logPath(dataDir, name),
        env: {
          ...serviceMallocEnv("events"),
          ...process.env,
          GRPC_PORT: String(port),
          EVENTS_MONGODB_URI: `${mongo.url}/events`,
          LOG_LEVEL: "warn",
          ...extraEnv,
        },
      },
    );
  const service = startEvents("events", grpcPort);
  // The replica looks for cycles written through the other every 100 ms; the one applied to polls as deployed.
  const replica = startEvents("events-replica", replicaPort, { EVENTS_REFRESH_INTERVAL_MS: "100" });
  const forget = interruption.own(async () => {
    await Promise.all([service.stop(), replica.stop()]);
    await mongo.stop();
  });
  const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${grpcPort}`, {
    defaultDeadlineMs: 120_000,
  });
  const replicaClient = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${replicaPort}`, {
    defaultDeadlineMs: 120_000,
  });
  try {
    for (const [name, started, grpc] of [
      ["events", service, client],
      ["events-replica", replica, replicaClient],
    ] as const) {
      await waitUntil(name, () => callUnary(grpc, grpc.getFeedStatus, {}), {
        timeoutMs: 30_000,
        process: started,
        signal: interruption.signal,
      });
    }
    const nowMs = Date.now();
    const cycle = (tick: number) => Array.from({ length: EVENT_COUNT }, (_, i) => generatedEvent(i, nowMs, tick));
    const first = cycle(0);
    const bytes = events.ApplyCycleRequest.encode({
      cycleId: "c0",
      observedAtMs: nowMs,
      events: first,
      restamped: [],
    }).finish().length;
    report(
      `events bench: ${EVENT_COUNT} events x ${SIDES_PER_EVENT} sides x ${BOOKMAKERS.length} bookmakers (${(bytes / 1e6).toFixed(1)} MB per cycle)`,
    );
    const internal = common.Caller.create({
      tier: "internal",
      allSports: true,
      allLeagues: true,
      allBookmakers: true,
      fairOdds: true,
    });
    // Beside each apply, one event read again and again (the first apply creates it midway).
    const oneEvent = events.ListEventsRequest.create({ caller: internal, eventIds: ["afl_bench_0000"] });
    const spread = (latencies: number[]) =>
      `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms`;
    for (const [name, cycleId, batch] of [
      ["ApplyCycle, all new", "c0", first],
      ["ApplyCycle, replayed (unchanged)", "c0", first],
      ["ApplyCycle, every price moved", "c1", cycle(1)],
    ] as const) {
      const before = await callUnary(replicaClient, replicaClient.getFeedStatus, {});
      const started = process.hrtime.bigint();
      const applied = callUnary(client, client.applyCycle, {
        cycleId,
        observedAtMs: nowMs,
        events: [...batch],
        restamped: [],
      });
      // The replica loads what the apply wrote once its next poll sees the feed state: its reads run until it has.
      const loaded = (async () => {
        while (
          (await callUnary(replicaClient, replicaClient.getFeedStatus, {})).lastCycleAtMs === before.lastCycleAtMs
        ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return Number(process.hrtime.bigint() - started) / 1e6;
      })();
      const applyMs = applied.then(() => Number(process.hrtime.bigint() - started) / 1e6);
      const [{ result, latencies }, onReplica] = await Promise.all([
        readsBeside(applied, () => callUnary(client, client.listEvents, oneEvent)),
        readsBeside(loaded, () => callUnary(replicaClient, replicaClient.listEvents, oneEvent)),
      ]);
      report(
        `  ${name}: ${(await applyMs).toFixed(0)} ms (upserted ${result.upserted}, unchanged ${result.unchanged}); ` +
          `${latencies.length} reads of one event beside it: ${spread(latencies)}`,
      );
      report(
        `    the replica loaded it ${onReplica.result.toFixed(0)} ms after the call began; ` +
          `${onReplica.latencies.length} reads of one event on the replica meanwhile: ${spread(onReplica.latencies)}`,
      );
    }
    report(`  events service peak RSS after the applies: ${peakRssMb(service.child.pid)?.toFixed(0) ?? "?"} MB`);
    const lite = common.Caller.create({
      tier: "lite",
      sportIds: ["AUSSIE_RULES", "RUGBY_LEAGUE", "SOCCER"],
      leagueIds: ["AFL", "NRL", "EPL"],
      bookmakerIds: BOOKMAKERS.slice(0, 4),
    });
    const scenarios: [string, Partial<events.ListEventsRequest>][] = [
      ["default page (limit 10), internal", { caller: internal, limit: 10 }],
      ["limit 100, internal", { caller: internal, limit: 100 }],
      ["default page, lite plan (bookmaker allow-list, no fair odds)", { caller: lite, limit: 10 }],
      [
        "oddID filter with includeOpposingOdds",
        { caller: internal, limit: 10, oddIds: ["stat1-all-game-ou-over"], includeOpposingOdds: true },
      ],
      ["includeAltLines", { caller: internal, limit: 10, includeAltLines: true }],
      [
        "eventIDs lookup (3 events)",
        { caller: internal, eventIds: ["bbl_bench_0100", "ipl_bench_0101", "afl_bench_0102"] },
      ],
      ["league + live=false filter", { caller: internal, limit: 10, leagueIds: ["EPL"], live: false }],
    ];
    const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
    for (const [name, request] of scenarios) {
      const full = events.ListEventsRequest.create(request);
      await callUnary(client, client.listEvents, full);
      const latencies: number[] = [];
      let payload = 0;
      const started = process.hrtime.bigint();
      for (let n = 0; n < iterations; n++) {
        const t = process.hrtime.bigint();
        const page = await callUnary(client, client.listEvents, full);
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        payload = page.items.reduce((sum, item) => sum + item.length, 0);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      latencies.sort((a, b) => a - b);
      report(
        `  ListEvents ${name}: p50 ${percentile(latencies, 50).toFixed(2)} ms, p95 ${percentile(latencies, 95).toFixed(2)} ms, ` +
          `${(iterations / seconds).toFixed(0)} req/s sequential, ${(payload / 1e3).toFixed(0)} kB per page`,
      );
    }

    let pages = 0;
    let cursor = "";
    const started = process.hrtime.bigint();
    do {
      const page = await callUnary(
        client,
        client.listEvents,
        events.ListEventsRequest.create({ caller: internal, limit: 25, includeFinished: true, cursor }),
      );
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== "");
    report(
      `  paging every event 25 at a time: ${pages} pages in ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(0)} ms`,
    );
  } finally {
    client.close();
    replicaClient.close();
    await Promise.all([service.stop(), replica.stop()]);
    await mongo.stop();
    forget();
  }
  // Its store and the services' logs stay only after a failure (the error skips this), for a post-mortem.
  rmSync(dataDir, { recursive: true, force: true });
}
