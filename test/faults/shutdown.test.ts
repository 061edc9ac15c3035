// SIGTERM under load: an edge beside the stack is stopped while keep-alive clients hammer it.
// In-flight requests complete, busy connections are told to close, new ones are refused, exit 0.
import { e2eStack } from "../support/e2e";
import { EDGE_START_MS, startEdgeBeside } from "../support/edge-process";

const CLIENTS = 8;
/** The edge answers for this long after SIGTERM (HTTP_DRAIN_MS in services/edge/src/main.ts), then closes its listener. */
const EDGE_DRAIN_MS = 3_000;

describe("edge stopped with SIGTERM under load", () => {
  it(
    "completes every request it accepted (no reset, no 5xx), refuses new connections, and exits 0",
    async () => {
      const { baseUrl, proc } = await startEdgeBeside({});
      const apiKey = e2eStack().apiKeys.internal;
      const outcomes: { status?: number; error?: string }[] = [];
      let stopping = false;
      let stoppedAtMs = 0;
      let refusedAfterStop = 0;

      // Each client asks until it is turned away: a fixed number of requests could all be answered before the
      // listener closes on a fast, idle machine, and nothing would be left to refuse.
      const giveUpAtMs = Date.now() + 40_000;
      const client = async () => {
        while (Date.now() < giveUpAtMs) {
          try {
            const res = await fetch(`${baseUrl}/sports/`, { headers: { "x-api-key": apiKey } });
            const body = (await res.json()) as { success?: boolean };
            outcomes.push({ status: res.status });
            if (res.status !== 200 || body.success !== true) return;
          } catch (err) {
            const cause = (err as { cause?: { code?: string; message?: string } }).cause;
            // Turned away once the listener closed: refused, or reset because the connection still sat in the
            // kernel's accept queue as the listener closed (the client may already have written its request, so
            // the reset shows on read; the edge never saw it). During the drain no connection may be reset.
            const listenerClosed = stopping && Date.now() - stoppedAtMs >= EDGE_DRAIN_MS;
            const turnedAway =
              cause?.code === "ECONNREFUSED" ||
              (cause?.code === "ECONNRESET" && (/^connect /.test(cause.message ?? "") || listenerClosed));
            if (stopping && turnedAway) {
              refusedAfterStop += 1;
              return;
            }
            outcomes.push({ error: `${cause?.code ?? ""} ${cause?.message ?? (err as Error).message}` });
            return;
          }
        }
      };

      const load = Promise.all(Array.from({ length: CLIENTS }, client));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      stopping = true;
      stoppedAtMs = Date.now();
      const exitCode = proc.stop(20_000);
      await load;

      expect(await exitCode).toBe(0);
      expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
      expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(CLIENTS);
      // Every client was turned away once the listener closed (none gave up while the edge still answered).
      expect(refusedAfterStop).toBe(CLIENTS);
    },
    EDGE_START_MS + 60_000,
  );
});
