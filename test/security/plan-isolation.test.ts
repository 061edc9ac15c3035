// A key of one plan never sees another plan's leagues, bookmakers or fair odds, on any route,
// through a cursor issued to another plan, or through prices that hidden bookmakers moved.
import { oddsFormat, pricing } from "@odds/proto";
import { getV2 } from "../support/e2e";
import { createKey } from "../edge/keys";

// services/usage/plans.yaml: lite sees three leagues, the first four bookmakers and no fair odds.
const LITE_LEAGUES = new Set(["AFL", "NRL", "EPL"]);
const LITE_BOOKMAKERS = new Set(["sportsbet", "tab", "ladbrokes_au", "neds"]);

let liteKeys: string[];
let liteCalls = 0;
/** Lite keys allow 5 requests a second and 60 a minute: calls rotate over several keys, paced. */
async function asLite(path: string) {
  const apiKey = liteKeys[liteCalls++ % liteKeys.length] as string;
  let res = await getV2(path, { apiKey });
  // 503 is the contract's answer when the live history tier misses its deadline (a loaded machine), and a
  // 429 of the per-second window (Retry-After of a second or two) when slow answers bunch up: ask again.
  const again = () => res.status === 503 || (res.status === 429 && Number(res.headers.get("retry-after")) <= 2);
  for (let retry = 0; retry < 3 && again(); retry += 1) {
    await new Promise((resolve) =>
      setTimeout(resolve, 1_000 * Math.max(1, Number(res.headers.get("retry-after") ?? 1))),
    );
    res = await getV2(path, { apiKey });
  }
  expect([path, res.status]).toEqual([path, 200]);
  await new Promise((resolve) => setTimeout(resolve, 60));
  return res.body;
}

beforeAll(async () => {
  liteKeys = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async () => (await createKey("lite")).apiKey));
});

type Side = {
  bookOdds: string;
  bookOddsAvailable: boolean;
  fairOdds: string | null;
  fairOddsAvailable: boolean;
  byBookmaker: Record<string, { decimal: number; available: boolean }>;
};
type Event = {
  eventID: string;
  leagueID: string;
  info: { bookmakersPresent: string[]; sourceBookmakerCount: number };
  odds: Record<string, Side>;
  links: { bookmakers: Record<string, string>; betslip: Record<string, unknown> };
};

describe("a lite key sees only its plan", () => {
  let events: Event[];
  let priced: Event[];

  beforeAll(async () => {
    events = (await asLite("/events/?limit=100&includeFinished=true")).data as Event[];
    priced = (await asLite("/events/?limit=100&oddsPresent=true")).data as Event[];
  });

  it("/events/: only its leagues and bookmakers, no fair odds, and counts over what it sees", () => {
    expect(priced.length).toBeGreaterThan(0);
    for (const event of [...events, ...priced]) {
      expect(LITE_LEAGUES).toContain(event.leagueID);
      for (const id of event.info.bookmakersPresent) expect(LITE_BOOKMAKERS).toContain(id);
      expect(event.info.sourceBookmakerCount).toBeLessThanOrEqual(event.info.bookmakersPresent.length);
      for (const id of Object.keys(event.links.bookmakers)) expect(LITE_BOOKMAKERS).toContain(id);
      for (const side of Object.values(event.odds)) {
        for (const id of Object.keys(side.byBookmaker)) expect(LITE_BOOKMAKERS).toContain(id);
        expect([side.fairOdds, side.fairOddsAvailable]).toEqual([null, false]);
      }
    }
  });

  it("/events/: each consensus price is the median over the bookmakers it sees (not all bookmakers)", () => {
    let checked = 0;
    for (const event of priced) {
      for (const side of Object.values(event.odds)) {
        const quotes = Object.entries(side.byBookmaker).map(([bookmakerID, quote]) => ({
          bookmakerID,
          decimal: quote.decimal,
          available: quote.available,
        }));
        const consensus = pricing.consensusOf(quotes);
        if (!consensus) continue;
        expect(side.bookOdds).toBe(oddsFormat.probabilityToAmerican(Math.min(0.999, consensus.probability)));
        expect(side.bookOddsAvailable).toBe(consensus.available);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("/odds/history/: ticks of its bookmakers only, and another plan's events are not found", async () => {
    const event = priced.find((e) => Object.keys(e.odds).length > 0) as Event;
    const ticks = (await asLite(`/odds/history/?eventID=${event.eventID}&limit=5000`)).data as {
      bookmakerID: string;
    }[];
    expect(ticks.length).toBeGreaterThan(0);
    for (const tick of ticks) expect(LITE_BOOKMAKERS).toContain(tick.bookmakerID);
    // An event of a league outside the plan, read with an internal key, then asked for with the lite key.
    const others = (await getV2("/events/?limit=100&includeFinished=true", { tier: "internal" })).body.data as Event[];
    const outside = others.find((e) => !LITE_LEAGUES.has(e.leagueID));
    if (outside) {
      const apiKey = liteKeys[0] as string;
      const res = await getV2(`/odds/history/?eventID=${outside.eventID}`, { apiKey });
      expect([res.status, res.body.success]).toEqual([404, false]);
    }
  });

  it("/teams/, /players/, /leagues/ and /sports/: nothing of another plan's leagues", async () => {
    for (const path of ["/teams/?limit=250", "/players/?limit=250"]) {
      for (const item of (await asLite(path)).data as { leagueID: string }[])
        expect(LITE_LEAGUES).toContain(item.leagueID);
    }
    for (const league of (await asLite("/leagues/")).data as { leagueID: string; enabled: boolean }[]) {
      expect([league.leagueID, league.enabled]).toEqual([league.leagueID, LITE_LEAGUES.has(league.leagueID)]);
    }
  });

  it("/markets/: support and bookmakers name only its leagues and bookmakers", async () => {
    // Thousands of markets in one page: a key of its own, whose entity windows no earlier call has spent.
    const apiKey = (await createKey("lite")).apiKey;
    const res = await getV2("/markets/?limit=10000", { apiKey });
    expect(res.status).toBe(200);
    const markets = res.body.data as {
      support: Record<string, Record<string, true>>;
      bookmakers: string[];
    }[];
    expect(markets.length).toBeGreaterThan(0);
    for (const market of markets) {
      for (const id of market.bookmakers) expect(LITE_BOOKMAKERS).toContain(id);
      for (const [leagueID, books] of Object.entries(market.support)) {
        expect(LITE_LEAGUES).toContain(leagueID);
        for (const id of Object.keys(books)) expect(LITE_BOOKMAKERS).toContain(id);
      }
    }
  });

  it("a cursor issued to another plan's key is refused naming cursor; its own cursor pages on", async () => {
    const base = await getV2("/events/?limit=1&includeFinished=true", { tier: "base" });
    expect(base.body.nextCursor).toEqual(expect.any(String));
    const apiKey = liteKeys[1] as string;
    const replayed = await getV2(`/events/?limit=1&includeFinished=true&cursor=${base.body.nextCursor}`, { apiKey });
    expect([replayed.status, replayed.body.error]).toEqual([400, "Invalid params"]);
    expect(replayed.body.message).toMatch(/^cursor: was issued to a key on another plan/);
    const own = await asLite("/events/?limit=1&includeFinished=true");
    const next = await asLite(`/events/?limit=1&includeFinished=true&cursor=${own.nextCursor}`);
    expect(next.data[0].eventID).not.toBe(own.data[0].eventID);
  });

  it("forged, truncated and other-route cursors are refused naming cursor", async () => {
    const own = await asLite("/teams/?limit=1");
    const [body, mac] = String(own.nextCursor).split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, c: "eyJ2IjoxfQ" })).toString("base64url")}.${mac}`;
    // A key of its own: a rotated key may have served the 5000-tick history page this minute, past the lite
    // plan's 2000 entities a minute, and be refused with 429 until the minute ends.
    const apiKey = (await createKey("lite")).apiKey;
    for (const path of [
      `/teams/?limit=1&cursor=${forged}`,
      `/teams/?limit=1&cursor=${String(own.nextCursor).slice(0, -5)}`,
      `/players/?limit=1&cursor=${own.nextCursor}`,
    ]) {
      const res = await getV2(path, { apiKey });
      expect([path, res.status, res.body.error]).toEqual([path, 400, "Invalid params"]);
      expect(res.body.message).toMatch(/^cursor: /);
    }
  });
});
