import { waitUntil } from "@odds/local";
import { v1 } from "@odds/proto";
import { getV2 } from "../support/e2e";
import { getV1, untilAdmitted, type V1Response } from "./client";

/** The v1 Pro plan on the running stack: the history start per league and /v1/odds/history. */

function expectProblem(res: V1Response, status: number, detail: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(v1.v1Problem.parse(res.body)).toEqual(res.body);
  expect(res.body.detail).toMatch(detail);
}

const HOUR = 3_600_000;

/** The window the paging test reads: the 4 hours up to the start of this minute. */
function recentWindow(): { from: number; to: number } {
  const to = Math.floor(Date.now() / 60_000) * 60_000;
  return { from: to - 4 * HOUR, to };
}

describe("v1 Pro plan on the running stack", () => {
  /**
   * An event with at least 20 ticks in `recentWindow()`, as v2 names it. On a stack started a moment ago every tick
   * may still be in the current minute, past the window's end: then this waits for the next minute.
   */
  let eventID: string;

  beforeAll(async () => {
    eventID = await waitUntil(
      "an event with 20 ticks in the last minutes",
      async () => {
        const res = await getV2("/events/?oddsAvailable=true&limit=50", { tier: "internal" });
        for (const event of res.status === 200 ? res.body.data : []) {
          const { from, to } = recentWindow();
          const ticks = await getV2(`/odds/history/?eventID=${event.eventID}&from=${iso(from)}&to=${iso(to)}`, {
            tier: "internal",
          });
          if (ticks.status === 200 && ticks.body.data.length >= 20) return event.eventID as string;
        }
        throw new Error(`no event with recent ticks among the events answered (${res.status})`);
      },
      { timeoutMs: 150_000, intervalMs: 3_000 },
    );
  }, 180_000);

  const iso = (ms: number) => new Date(ms).toISOString();

  it("shows each league's history start in /v1/leagues: 2025-12-22 where recordings were converted", async () => {
    const res = await untilAdmitted(() => getV1("/leagues", { tier: "pro" }));
    expect(res.status).toBe(200);
    const starts = Object.fromEntries(res.body.data.map((league: any) => [league.league_id, league.history_start]));
    expect(starts).toMatchObject({ AFL: "2025-12-22", NRL: "2025-12-22", EPL: "2025-12-22", BBL: "2026-10-08" });
  });

  it("refuses odds history to keys whose plan is not pro, naming the plan", async () => {
    const path = `/odds/history?event_id=${v1.v1Id("event", eventID)}`;
    for (const tier of ["lite", "base"] as const) {
      expectProblem(await getV1(path, { tier }), 403, new RegExp(`pro plan; this key's plan is ${tier}`));
    }
  });

  it("serves the same ticks as v2's history, in v1's shape, paged through links.next", async () => {
    const { from, to } = recentWindow();
    const v2 = await untilAdmitted(() =>
      getV2(`/odds/history/?eventID=${eventID}&from=${iso(from)}&to=${iso(to)}&limit=5000`, { tier: "pro" }),
    );
    expect(v2.status).toBe(200);
    expect(v2.body.nextCursor || null).toBeNull();
    const ticks: any[] = [];
    let objects = 0;
    // Three to four pages, whatever the number of ticks.
    const limit = Math.max(1, Math.ceil(v2.body.data.length / 3));
    let next: string | null =
      `/odds/history?event_id=${v1.v1Id("event", eventID)}&from=${iso(from)}&to=${iso(to)}&limit=${limit}`;
    let pages = 0;
    while (next !== null) {
      const page = next;
      const res = await untilAdmitted(() => getV1(page, { tier: "pro" }));
      expect(res.status).toBe(200);
      for (const tick of res.body.data) expect(v1.v1OddsTick.parse(tick)).toEqual(tick);
      ticks.push(...res.body.data);
      objects += res.body.meta.cost.objects;
      next = res.body.links.next;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(
      ticks.map((tick) => [tick.changed_at, tick.outcome_id, tick.bookmaker, tick.kind, tick.decimal_odds]),
    ).toEqual(
      v2.body.data.map((tick: any) => [
        tick.changedAt,
        v1.v1Id("outcome", tick.oddID),
        tick.bookmakerID,
        tick.kind,
        tick.decimalOdds === null ? null : v1.v1DecimalPrice(tick.decimalOdds).decimal_odds,
      ]),
    );
    expect(objects).toBe(ticks.length + ticks.filter((tick) => tick.decimal_odds !== null).length);
  });

  it("refuses a window over 24 hours naming to, and a from before the league's history start naming from", async () => {
    const event = v1.v1Id("event", eventID);
    expectProblem(
      await untilAdmitted(() =>
        getV1(`/odds/history?event_id=${event}&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:01Z`, { tier: "pro" }),
      ),
      400,
      /^to: .*24 hours/,
    );
    expectProblem(
      await untilAdmitted(() => getV1(`/odds/history?event_id=${event}&from=2025-01-01T00:00:00Z`, { tier: "pro" })),
      400,
      /^from: \w+ history starts at 20(25-12-22|26-10-08)/,
    );
    expectProblem(
      await untilAdmitted(() => getV1(`/odds/history?event_id=${eventID}`, { tier: "pro" })),
      400,
      /^event_id/,
    );
  });
});
