import { waitUntil, type ManagedProcess } from "@odds/local";
import { v1 } from "@odds/proto";
import WebSocket from "ws";
import { createKey, setKeyActive } from "../edge/keys";
import { e2eStack, getV2 } from "../support/e2e";
import { EDGE_START_MS, startEdgeBeside } from "../support/edge-process";

/**
 * The v1 odds stream (WebSocket /v1/stream/odds) on an edge of its own beside the running stack,
 * with a short heartbeat and lifetime so their cadence can be observed. The feed cycles every 5 s.
 */

const HEARTBEAT_MS = 1_000;
const LIFETIME_MS = 20_000;

interface Received {
  at: number;
  message: any;
}

/** One client: every message with its arrival time, and how the server closed it. */
class StreamClient {
  readonly messages: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string; at: number }>;
  private closedWith: { code: number; reason: string } | undefined;
  private readonly socket: WebSocket;

  constructor(url: string, apiKey: string | undefined, subscription: unknown) {
    this.socket = new WebSocket(url, apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {});
    this.socket.on("open", () => this.socket.send(JSON.stringify(subscription)));
    this.socket.on("message", (data) => this.messages.push({ at: Date.now(), message: JSON.parse(String(data)) }));
    this.closed = new Promise((resolve) =>
      this.socket.on("close", (code, reason) => {
        this.closedWith = { code, reason: String(reason) };
        resolve({ code, reason: String(reason), at: Date.now() });
      }),
    );
  }

  send(text: string): void {
    this.socket.send(text);
  }

  close(): void {
    this.socket.close();
  }

  of(type: string): Received[] {
    return this.messages.filter((received) => received.message.type === type);
  }

  async until(done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline || this.closedWith) {
        const closed = this.closedWith ? `closed ${this.closedWith.code} (${this.closedWith.reason})` : "timed out";
        throw new Error(`${closed}; got ${JSON.stringify(this.messages.map((m) => m.message.type))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe("v1 odds stream", () => {
  let edge: { baseUrl: string; proc: ManagedProcess };
  let streamUrl: string;
  /** v1 ids of events with odds, all of one league. */
  let leagueEvents: string[];

  beforeAll(async () => {
    edge = await startEdgeBeside({
      STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
      STREAM_LIFETIME_MS: String(LIFETIME_MS),
      STREAM_SUBSCRIBE_TIMEOUT_MS: "3000",
    });
    streamUrl = `${edge.baseUrl.replace(/^http/, "ws").replace(/\/v2$/, "")}/v1/stream/odds`;
    leagueEvents = await waitUntil(
      "a league with two events with odds",
      async () => {
        const res = await getV2("/events/?oddsAvailable=true&limit=100", { tier: "internal" });
        const byLeague = new Map<string, string[]>();
        for (const event of res.status === 200 ? res.body.data : []) {
          byLeague.set(event.leagueID, [...(byLeague.get(event.leagueID) ?? []), v1.v1Id("event", event.eventID)]);
        }
        const best = [...byLeague.values()].sort((a, b) => b.length - a.length)[0];
        if (best && best.length >= 2) return best.slice(0, 20);
        throw new Error(`at most ${best?.length ?? 0} events with odds in one league (${res.status})`);
      },
      { timeoutMs: 120_000, intervalMs: 2_000 },
    );
  }, EDGE_START_MS + 150_000);

  afterAll(async () => {
    await edge?.proc.stop();
  });

  const subscribe = (eventIDs: string[]) => ({ type: "subscribe", event_ids: eventIDs });

  it("refuses keys whose plan has no stream with close 4403 naming the plan", async () => {
    for (const tier of ["lite", "base"] as const) {
      const client = new StreamClient(streamUrl, e2eStack().apiKeys[tier], subscribe(leagueEvents.slice(0, 1)));
      const closed = await client.closed;
      expect(closed.code).toBe(4403);
      expect(closed.reason).toMatch(new RegExp(`pro plan: this key's plan is ${tier}`));
      expect(client.messages).toEqual([]);
    }
  }, 30_000);

  it("sends a snapshot at once, then snapshots on change and heartbeats at the configured cadence", async () => {
    const { apiKey } = await createKey("pro");
    const client = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents));
    await client.until(() => client.of("heartbeat").length >= 3 && client.of("snapshot").length >= 2, 30_000);
    client.close();
    const first = client.messages[0]!.message;
    expect(first.type).toBe("snapshot");
    expect(first.data.map((odds: any) => odds.event_id).sort()).toEqual([...leagueEvents].sort());
    for (const odds of first.data) expect(v1.v1EventOdds.parse(odds)).toEqual(odds);
    // Every message comes no later than the heartbeat interval after the one before (with room for
    // a busy machine), and a heartbeat only after a quiet interval.
    for (let i = 1; i < client.messages.length; i++) {
      const gap = client.messages[i]!.at - client.messages[i - 1]!.at;
      expect(gap).toBeLessThan(HEARTBEAT_MS + 2_000);
      if (client.messages[i]!.message.type === "heartbeat") expect(gap).toBeGreaterThanOrEqual(HEARTBEAT_MS - 100);
    }
    // A later snapshot follows a cycle that changed the odds, and reaches us soon after it: one feed
    // poll and one read later. cycle_at is stamped by the events service before it stores the cycle,
    // so the delay includes that write; the bound leaves room for a busy machine, the figures are printed.
    const changes = client.of("snapshot").slice(1);
    const delays = changes.map((received) => received.at - Date.parse(received.message.cycle_at));
    process.stdout.write(`stream delivery after cycle_at (ms): ${delays.join(", ")}\n`);
    for (const delay of delays) expect(delay).toBeLessThan(3_000);
    for (let i = 1; i < client.of("snapshot").length; i++) {
      expect(JSON.stringify(client.of("snapshot")[i]!.message.data)).not.toBe(
        JSON.stringify(client.of("snapshot")[i - 1]!.message.data),
      );
    }
  }, 60_000);

  it("counts each snapshot as an odds request of the key, with its objects", async () => {
    const { apiKey } = await createKey("pro");
    const usage = async () => (await getV2("/account/usage", { apiKey })).body.data[0].rateLimits["per-day"];
    const before = await usage();
    const client = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    await client.until(() => client.of("snapshot").length >= 2, 30_000);
    client.close();
    await client.closed;
    const snapshots = client.of("snapshot");
    const objects = snapshots.reduce((sum, received) => sum + received.message.meta.cost.objects, 0);
    // Requests are counted before each snapshot is sent; a snapshot's objects ride the key's next
    // admission on the stream's edge, or its entity flush (RATE_LIMIT_ENTITY_FLUSH_MS, 200 ms), so the
    // last one reaches Redis shortly after. Usage is read (on the stack's edge) until it is in, and
    // every usage read counts too: one request, and one object carried into the next read.
    let reads = 0;
    let after;
    const deadline = Date.now() + 10_000;
    do {
      after = await usage();
      reads += 1;
      if (after["current-entities"] - (before["current-entities"] ?? 0) - reads >= objects) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (Date.now() < deadline);
    expect(after["current-requests"] - (before["current-requests"] ?? 0)).toBe(snapshots.length + reads);
    expect(after["current-entities"] - (before["current-entities"] ?? 0)).toBe(objects + reads);
  }, 60_000);

  it("allows two open streams per key and refuses a third with close 4409; a closed one frees its slot", async () => {
    const { apiKey } = await createKey("pro");
    const one = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    const two = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(1, 2)));
    await one.until(() => one.of("snapshot").length >= 1, 20_000);
    await two.until(() => two.of("snapshot").length >= 1, 20_000);
    const three = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    const refused = await three.closed;
    expect(refused.code).toBe(4409);
    expect(refused.reason).toMatch(/at most 2 per key/);
    one.close();
    await one.closed;
    const again = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    await again.until(() => again.of("snapshot").length >= 1, 20_000);
    two.close();
    again.close();
  }, 60_000);

  it("closes a stream at its lifetime with close 4000", async () => {
    const { apiKey } = await createKey("pro");
    const client = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    await client.until(() => client.messages.length >= 1, 20_000);
    const opened = client.messages[0]!.at;
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    expect(closed.at - opened).toBeGreaterThanOrEqual(LIFETIME_MS - 1_000);
    expect(closed.at - opened).toBeLessThan(LIFETIME_MS + 5_000);
  }, 60_000);

  it("closes the stream of a key deactivated while it is open with close 4410", async () => {
    const { apiKey, keyID } = await createKey("pro");
    const client = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    await client.until(() => client.messages.length >= 1, 20_000);
    await setKeyActive(keyID, false);
    const closed = await client.closed;
    expect(closed.code).toBe(4410);
  }, 60_000);

  it("is read only: a second client message closes the stream with 4400", async () => {
    const { apiKey } = await createKey("pro");
    const client = new StreamClient(streamUrl, apiKey, subscribe(leagueEvents.slice(0, 1)));
    await client.until(() => client.messages.length >= 1, 20_000);
    client.send(JSON.stringify(subscribe(leagueEvents.slice(1, 2))));
    const closed = await client.closed;
    expect(closed.code).toBe(4400);
    expect(closed.reason).toMatch(/read only/);
  }, 30_000);

  it("refuses a bad subscription naming the field, more than 20 events, and a v2 event id", async () => {
    const { apiKey } = await createKey("pro");
    const many = Array.from({ length: 21 }, (_, i) => v1.v1Id("event", `x${i}`));
    for (const [body, reason] of [
      [subscribe(many), /event_ids: at most 20/],
      [{ type: "subscribe", event_ids: ["AFL_2026-11-21_A_vs_B"] }, /event_ids.0: expected v1 event ids/],
      [{ type: "watch" }, /type/],
    ] as const) {
      const closed = await new StreamClient(streamUrl, apiKey, body).closed;
      expect(closed.code).toBe(4400);
      expect(closed.reason).toMatch(reason);
    }
    const unknown = await new StreamClient(streamUrl, apiKey, subscribe([v1.v1Id("event", "nothing")])).closed;
    expect(unknown.code).toBe(4404);
  }, 30_000);

  it("answers a plain GET of the stream, without the upgrade, with a 426 problem", async () => {
    const plain = await fetch(streamUrl.replace(/^ws/, "http"));
    expect([plain.status, plain.headers.get("upgrade")]).toEqual([426, "websocket"]);
    expect(await plain.json()).toMatchObject({ title: "Upgrade required", status: 426 });
  });

  it("takes the key from the subscription for browsers, and leaves v2's /stream/events at 501", async () => {
    const { apiKey } = await createKey("pro");
    const client = new StreamClient(streamUrl, undefined, {
      ...subscribe(leagueEvents.slice(0, 1)),
      authorization: `Bearer ${apiKey}`,
    });
    await client.until(() => client.of("snapshot").length >= 1, 20_000);
    client.close();
    expect((await getV2("/stream/events")).status).toBe(501);
    const noKey = await new StreamClient(streamUrl, undefined, subscribe(leagueEvents.slice(0, 1))).closed;
    expect(noKey.code).toBe(4401);
  }, 30_000);
});
