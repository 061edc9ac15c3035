import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { removeScratchFolder, scratchFolder, waitUntil } from "@odds/local";
import { FreshnessProbe, historyFreshness, HISTORY_PROBED_EVENTS } from "./ingest";

// A local HTTP server in the stack's place: the events route lists three upcoming events, the history route answers
// each event's newest tick. Only the second event moves in the cycle of the minute just begun; none moves in the cycle
// two minutes later. (A cycle's writes are acknowledged after its instant, so the instants are taken from now.)
const minuteMs = Math.floor(Date.now() / 60_000) * 60_000;
const EARLIER = new Date(minuteMs - 120_000).toISOString();
const MOVED = new Date(minuteMs).toISOString();
const UNMOVED = new Date(minuteMs + 120_000).toISOString();
const EVENTS = ["afl_a", "afl_b", "afl_c"];

/** Waits (the stack's own `waitUntil`) until `check` passes; a timeout carries its last failed expectation. */
const until = (what: string, check: () => void) =>
  waitUntil(what, async () => check(), { timeoutMs: 5000, intervalMs: 10 });

describe("the bench's freshness probe", () => {
  let server: Server;
  let baseUrl: string;
  let dataDir: string;
  /** The history reads the server answered, by event; and whether the 10:02 cycle is served yet. */
  const historyReads = new Map<string, number>();
  let served = false;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://probe");
      const json = (data: unknown[]) =>
        response.setHeader("content-type", "application/json").end(JSON.stringify({ data }));
      if (request.headers["x-api-key"] !== "bench-key") {
        response.writeHead(401).end();
      } else if (url.pathname === "/v2/events/") {
        const limit = Number(url.searchParams.get("limit"));
        json(EVENTS.slice(0, limit).map((eventID) => ({ eventID, info: { lastUpdatedAt: served ? MOVED : EARLIER } })));
      } else if (url.pathname === "/v2/odds/history/") {
        const eventID = url.searchParams.get("eventID") ?? "";
        historyReads.set(eventID, (historyReads.get(eventID) ?? 0) + 1);
        json([{ changedAt: EARLIER }, { changedAt: served && eventID === "afl_b" ? MOVED : EARLIER }]);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v2`;
    dataDir = scratchFolder("freshness-probe-");
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    removeScratchFolder(dataDir);
  });

  test("follows several events on history and times the cycle from the write of the one that showed it", async () => {
    const probe = new FreshnessProbe({ baseUrl, apiKeys: { internal: "bench-key" } }, 20);
    const moved = { cycleID: `cycle-${MOVED}`, doneAt: MOVED };
    let writtenAt = 0;
    probe.start();
    try {
      await until("the probe follows events", () => expect(probe.eventIDs.length).toBeGreaterThan(0));
      expect(probe.eventIDs).toEqual(EVENTS.slice(0, HISTORY_PROBED_EVENTS));
      await until("each followed event read twice on history", () =>
        EVENTS.forEach((eventID) => expect(historyReads.get(eventID) ?? 0).toBeGreaterThanOrEqual(2)),
      );

      // The history service acknowledges the cycle's calls: afl_b's quotes went in the first, the others' later.
      writtenAt = Date.now();
      mkdirSync(join(dataDir, "logs"), { recursive: true });
      const recorded = (at: number, eventIds: string[]) =>
        JSON.stringify({ time: new Date(at).toISOString(), msg: "quotes recorded", eventIds });
      writeFileSync(
        join(dataDir, "logs", "history.log"),
        [recorded(writtenAt, ["afl_b"]), recorded(writtenAt + 60_000, ["afl_a", "afl_c"])].join("\n") + "\n",
      );
      served = true;
      await until("the cycle seen on history", () => expect(probe.historySeenBy(moved)).toBeDefined());
      // The events route's first event shows the cycle too.
      await until("the cycle seen on events", () =>
        expect(probe.freshnessMs(moved, "events", [writtenAt])).not.toBeNull(),
      );
    } finally {
      probe.stop();
    }

    expect(probe.historySeenBy(moved)).toBe("afl_b");
    const fresh = historyFreshness(probe, dataDir, moved);
    expect(fresh).not.toBeNull();
    // Timed from afl_b's write (the later call, which did not carry it, would give a negative figure).
    expect(fresh!).toBeGreaterThanOrEqual(0);
    expect(fresh!).toBeLessThan(5000);
    expect(probe.freshnessMs(moved, "events", [writtenAt])).toBeGreaterThanOrEqual(0);

    // A cycle none of the followed events moved in is not seen on history: no figure rather than a wrong one.
    const unmoved = { cycleID: `cycle-${UNMOVED}`, doneAt: UNMOVED };
    expect(probe.historySeenBy(unmoved)).toBeUndefined();
    expect(historyFreshness(probe, dataDir, unmoved)).toBeNull();
  });
});
