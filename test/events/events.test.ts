import { waitUntil } from "@odds/local";
import { getV2 } from "../support/e2e";

/** GET /v2/events/ through the real edge, events service and ingest's simulated feed. */

const LITE_BOOKMAKERS = ["sportsbet", "tab", "ladbrokes_au", "neds"];

function waitForEvents(): Promise<any[]> {
  return waitUntil(
    "events served",
    async () => {
      const res = await getV2("/events/?includeFinished=true&limit=100", { tier: "internal" });
      if (res.status === 200 && res.body.data.length > 0) return res.body.data as any[];
      throw new Error(`no events served: ${res.status} ${JSON.stringify(res.body)}`);
    },
    { timeoutMs: 120_000, intervalMs: 2_000 },
  );
}

function orderKey(event: any): string {
  return `${event.status.startsAt}|${event.eventID}`;
}

describe("GET /v2/events/ on the running stack", () => {
  let everything: any[];

  beforeAll(async () => {
    everything = await waitForEvents();
  }, 150_000);

  it("serves contract Events in startsAt then eventID order, ten by default", async () => {
    const res = await getV2("/events/?includeFinished=true", { tier: "internal" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.length).toBe(Math.min(10, everything.length));
    const keys = res.body.data.map(orderKey);
    expect(keys).toEqual([...keys].sort());
    const [event] = res.body.data;
    expect(Object.keys(event)).toEqual([
      "eventID",
      "sportID",
      "leagueID",
      "type",
      "status",
      "info",
      "teams",
      "players",
      "results",
      "odds",
      "links",
    ]);
    expect(event.status.startsAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(typeof event.info.stale).toBe("boolean");
    expect(JSON.stringify(res.body.data)).not.toMatch(/"(open|close)(Odds|Spread|OverUnder)"/);
  });

  it("gives each tier its plan: lite sees its leagues, four bookmakers and no fair odds; base sees fair odds", async () => {
    const lite = await getV2("/events/?limit=20", { tier: "lite" });
    expect(lite.status).toBe(200);
    for (const event of lite.body.data) {
      expect(["AFL", "NRL", "EPL"]).toContain(event.leagueID);
      for (const side of Object.values<any>(event.odds)) {
        expect([side.fairOdds, side.fairOddsAvailable]).toEqual([null, false]);
        for (const bookmakerID of Object.keys(side.byBookmaker)) expect(LITE_BOOKMAKERS).toContain(bookmakerID);
      }
    }
    const base = await getV2("/events/?limit=20&oddsPresent=true", { tier: "base" });
    expect(base.status).toBe(200);
    const fair = base.body.data.flatMap((event: any) => Object.values<any>(event.odds).map((side) => side.fairOdds));
    expect(fair.some((price: string | null) => typeof price === "string")).toBe(true);
  });

  it("pages to the end without repeating an event, covering the unpaged list, nextCursor null last", async () => {
    const paged: any[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/events/?includeFinished=true&limit=7${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await getV2(query, { tier: "internal" });
      expect(res.status).toBe(200);
      paged.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor !== null);
    const ids = paged.map((event) => event.eventID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(paged.map(orderKey)).toEqual(paged.map(orderKey).sort());
    expect(ids).toEqual(expect.arrayContaining(everything.map((event) => event.eventID)));
  });

  it("with eventIDs selects only those events whatever the other selectors say, still shaping odds", async () => {
    const [first, second] = everything;
    const res = await getV2(
      `/events/?eventIDs=${first.eventID},${second.eventID}&leagueID=NOPE&live=true&startsAfter=2100-01-01` +
        `&oddID=points-home-game-ml-home&includeOpposingOdds=true`,
      { tier: "internal" },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((event: any) => event.eventID)).toEqual([first.eventID, second.eventID]);
    for (const event of res.body.data)
      for (const oddID of Object.keys(event.odds))
        expect(["points-home-game-ml-home", "points-away-game-ml-away"]).toContain(oddID);
  });

  it("accepts expandResults and includeOpenCloseOdds with no effect on the events served", async () => {
    const ids = everything.slice(0, 3).map((event) => event.eventID);
    const plain = await getV2(`/events/?eventIDs=${ids.join(",")}`, { tier: "internal" });
    const flagged = await getV2(`/events/?eventIDs=${ids.join(",")}&expandResults=true&includeOpenCloseOdds=true`, {
      tier: "internal",
    });
    expect(flagged.status).toBe(200);
    const shape = (body: any) => body.data.map((event: any) => [event.eventID, Object.keys(event.odds).sort()]);
    expect(shape(flagged.body)).toEqual(shape(plain.body));
    expect(JSON.stringify(flagged.body.data)).not.toMatch(/"(open|close)(Odds|Spread|OverUnder)"/);
  });

  it("includes altLines only with includeAltLines=true", async () => {
    const plain = await getV2("/events/?limit=20&oddsPresent=true", { tier: "internal" });
    for (const event of plain.body.data)
      for (const side of Object.values<any>(event.odds)) expect(side).not.toHaveProperty("altLines");
    const alt = await getV2("/events/?limit=20&oddsPresent=true&includeAltLines=true", { tier: "internal" });
    const sides = alt.body.data.flatMap((event: any) => Object.values<any>(event.odds));
    expect(sides.length).toBeGreaterThan(0);
    for (const side of sides) expect(side).toHaveProperty("altLines");
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=abc", "limit"],
    ["limit=101", "limit"],
    ["live=yes", "live"],
    ["includeFinished=1", "includeFinished"],
    ["startsAfter=not-a-date", "startsAfter"],
    ["type=game", "type"],
    ["cursor=!!!", "cursor"],
    ["cursor=eyJ2IjoxfQ", "cursor"],
  ])("answers 400 Invalid params naming the parameter for %s", async (query, parameter) => {
    const res = await getV2(`/events/?${query}`, { tier: "internal" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "Invalid params" });
    expect(res.body.message).toMatch(new RegExp(`^${parameter}: `));
  });

  it("answers 400 naming cursor when a cursor is replayed with other filters", async () => {
    const first = await getV2("/events/?includeFinished=true&limit=2", { tier: "internal" });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const replayed = await getV2(`/events/?includeFinished=true&live=true&limit=2&cursor=${first.body.nextCursor}`, {
      tier: "internal",
    });
    expect(replayed.status).toBe(400);
    expect(replayed.body.message).toMatch(/^cursor: /);
  });
});
