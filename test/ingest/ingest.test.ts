import { getV2 } from "../support/e2e";

/** What ingest's simulated feed and backfill put into the running stack, read back through the edge. */

// Team sports, and the tennis tour and MMA promotion between two competitors (home and away in v2).
const LEAGUES = ["AFL", "NRL", "A_LEAGUE", "EPL", "BBL", "IPL", "ATP", "UFC"];
const DAY_MS = 86_400_000;

async function eventsWhere(query: string): Promise<any[]> {
  const res = await getV2(`/events/?${query}`, { tier: "internal" });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function ticksOf(eventID: string): Promise<any[]> {
  const res = await getV2(`/odds/history/?eventID=${encodeURIComponent(eventID)}&limit=5000`, { tier: "internal" });
  expect(res.status).toBe(200);
  expect(res.body.notice).toBeUndefined();
  return res.body.data;
}

describe("ingest's feed in the running stack", () => {
  it.each(LEAGUES)("carries priced upcoming or live events of %s", async (leagueID) => {
    const events = await eventsWhere(`leagueID=${leagueID}&oddsAvailable=true&limit=5`);
    expect(events.length).toBeGreaterThan(0);
    const [event] = events;
    expect(event.eventID).toMatch(/^[a-z]+_\d{4}-\d{2}-\d{2}_[a-z0-9_]+_vs_[a-z0-9_]+$/);
    expect(event.teams.home.teamID).toMatch(new RegExp(`_${leagueID}$`));
    const ml = event.odds["points-home-game-ml-home"];
    expect(ml.bookOdds).toMatch(/^[+-]\d+$/);
    expect(Object.keys(ml.byBookmaker).length).toBeGreaterThan(2);
  });

  it("keeps events that finished weeks ago, with results", async () => {
    const before = new Date(Date.now() - 30 * DAY_MS).toISOString();
    const old = await eventsWhere(`includeFinished=true&finalized=true&startsBefore=${before}&limit=20`);
    expect(old.length).toBeGreaterThan(0);
    expect(old.some((e: any) => typeof e.results?.game?.home?.points === "number")).toBe(true);
  });

  it("serves history from the archive tier (older than 28 days) and from the live tier", async () => {
    // The stack backfills 35 days (stack-setup.ts). An event kicking off in the backfill's first minutes
    // was priced only before it began, so it rightly has no ticks: take one that kicked off a day later.
    const after = new Date(Date.now() - 34 * DAY_MS).toISOString();
    const before = new Date(Date.now() - 30 * DAY_MS).toISOString();
    const [old] = await eventsWhere(
      `includeFinished=true&finalized=true&startsAfter=${after}&startsBefore=${before}&limit=1`,
    );
    const oldTicks = await ticksOf(old.eventID);
    expect(oldTicks.length).toBeGreaterThan(0);
    expect(oldTicks.some((t: any) => Date.parse(t.changedAt) < Date.now() - 28 * DAY_MS)).toBe(true);

    const recent = await eventsWhere("oddsAvailable=true&leagueID=EPL&limit=1");
    const recentTicks = await ticksOf(recent[0].eventID);
    expect(recentTicks.length).toBeGreaterThan(0);
    expect(recentTicks.every((t: any) => Date.parse(t.changedAt) > Date.now() - 28 * DAY_MS)).toBe(true);
  });

  it("records every tick kind: open, move, limit (exchange stake) and close", async () => {
    const after = new Date(Date.now() - 6.5 * DAY_MS).toISOString();
    const before = new Date(Date.now() - 3 * DAY_MS).toISOString();
    const finished = await eventsWhere(
      `includeFinished=true&finalized=true&startsAfter=${after}&startsBefore=${before}&limit=10`,
    );
    const kinds = new Set<string>();
    for (const event of finished) for (const tick of await ticksOf(event.eventID)) kinds.add(tick.kind);
    expect([...kinds].sort()).toEqual(["close", "limit", "move", "open"]);
  });
});
