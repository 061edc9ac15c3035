import SwaggerParser from "@apidevtools/swagger-parser";
import { waitUntil } from "@odds/local";
import { v1 } from "@odds/proto";
import type { z } from "zod";
import { createKey } from "../edge/keys";
import { e2eStack, getV2 } from "../support/e2e";
import { getV1, type V1Response } from "./client";

/** The v1 preview through the real edge, events and catalogue services, on the simulated feed. */

function expectItems(res: V1Response, schema: z.ZodType): void {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(["data", "meta", "links"]);
  const items = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
  expect(res.body.meta.count).toBe(Array.isArray(res.body.data) ? items.length : 1);
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (!parsed.success) throw new Error(`${parsed.error.message}\n${JSON.stringify(item).slice(0, 500)}`);
    // Parsing drops unknown keys: equality also catches a field the contract lacks.
    expect(parsed.data).toEqual(item);
  }
}

function expectProblem(res: V1Response, status: number, detail?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(v1.v1Problem.parse(res.body)).toEqual(res.body);
  expect(res.body.status).toBe(status);
  if (detail) expect(res.body.detail).toMatch(detail);
}

/** Every page of a list route, following links.next to its end. */
async function readAll(path: string): Promise<{ items: any[]; pages: V1Response[] }> {
  const items: any[] = [];
  const pages: V1Response[] = [];
  let next: string | null = path;
  while (next !== null) {
    const res = await getV1(next, { tier: "internal" });
    expect(res.status).toBe(200);
    pages.push(res);
    items.push(...res.body.data);
    next = res.body.links.next;
    expect(pages.length).toBeLessThan(200);
  }
  return { items, pages };
}

const prices = (odds: any): any[] =>
  (odds.markets ?? []).flatMap((market: any) => market.outcomes.flatMap((outcome: any) => outcome.prices));

describe("v1 preview on the running stack", () => {
  let events: any[];

  beforeAll(async () => {
    events = await waitUntil(
      "v1 events with odds",
      async () => {
        const res = await getV1("/events?limit=100", { tier: "internal" });
        if (res.status === 200 && res.body.data.some((event: any) => event.odds_available)) return res.body.data;
        throw new Error(`no v1 events with odds: ${res.status} ${JSON.stringify(res.body)}`);
      },
      { timeoutMs: 120_000, intervalMs: 2_000 },
    );
  }, 150_000);

  describe("catalogue routes", () => {
    it.each([
      ["/sports", v1.v1Sport],
      ["/leagues", v1.v1League],
      ["/bookmakers", v1.v1Bookmaker],
      ["/markets", v1.v1Market],
      ["/teams", v1.v1Team],
      ["/players", v1.v1Player],
    ] as const)("%s serves v1 objects in {data, meta, links}", async (path, schema) => {
      const res = await getV1(path, { tier: "internal" });
      expectItems(res, schema);
      expect(res.body.data.length).toBeGreaterThan(0);
      expect(res.body.links.self).toBe(`/v1${path}`);
      expect(res.body.meta.cost.objects).toBe(res.body.data.length);
    });

    it("filters players by a v1 event id and finds them by their own v1 id", async () => {
      const withPlayers = events.find((event) => event.players.length > 0);
      expect(withPlayers).toBeDefined();
      const res = await getV1(`/players?event_id=${withPlayers.event_id}&limit=250`, { tier: "internal" });
      expectItems(res, v1.v1Player);
      const ids = res.body.data.map((player: any) => player.player_id);
      for (const player of withPlayers.players) expect(ids).toContain(player.player_id);
      const one = await getV1(`/players?player_id=${withPlayers.players[0].player_id}`, { tier: "internal" });
      expect(one.body.data.map((player: any) => player.player_id)).toEqual([withPlayers.players[0].player_id]);
    });

    it("markets group every outcome of a market; the lite plan sees only its leagues and bookmakers", async () => {
      // Lite keys of their own, here and on /odds: one such answer costs more objects than lite's 2000 a minute,
      // and the stack's shared lite key, spent that way, would refuse the other suites' lite calls with 429.
      const lite = await getV1("/markets?limit=1000", { apiKey: (await createKey("lite")).apiKey });
      expectItems(lite, v1.v1Market);
      for (const market of lite.body.data) {
        expect(market.outcomes.length).toBeGreaterThan(0);
        for (const league of market.leagues) expect(["AFL", "NRL", "EPL"]).toContain(league);
        for (const bookmaker of market.bookmakers)
          expect(["sportsbet", "tab", "ladbrokes_au", "neds"]).toContain(bookmaker);
      }
    });
  });

  describe("events and odds", () => {
    it("serves v1 Events with v1 ids and participant roles", async () => {
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) {
        expect(v1.v1Event.parse(event)).toEqual(event);
        expect(event.participants.map((p: any) => p.role)).toEqual(
          ["TENNIS", "MMA"].includes(event.sport_id) ? ["competitor_1", "competitor_2"] : ["home", "away"],
        );
      }
    });

    it.each([
      ["TENNIS", "ATP", ["ml", "cs", "sp", "ou"]],
      ["MMA", "UFC", ["ml", "pick", "ou", "yn"]],
    ])(
      "%s events have competitor_1 and competitor_2 on /events and /odds, priced on their own markets",
      async (sport, league, betTypes) => {
        const listed = await getV1(`/events?sport_id=${sport}&status=scheduled&limit=20`, { tier: "internal" });
        expectItems(listed, v1.v1Event);
        expect(listed.body.data.length).toBeGreaterThan(0);
        for (const event of listed.body.data) {
          expect(event.league_id).toBe(league);
          expect(event.participants.map((p: any) => p.role)).toEqual(["competitor_1", "competitor_2"]);
        }
        const odds = await getV1(`/odds?sport_id=${sport}&status=scheduled&limit=20`, { tier: "internal" });
        expectItems(odds, v1.v1EventOdds);
        const priced = new Set(odds.body.data.flatMap((o: any) => o.markets.map((m: any) => m.bet_type)));
        // The winner opens first (a week out); the other markets a few days before.
        expect(priced.has("ml")).toBe(true);
        for (const betType of priced) expect(betTypes).toContain(betType);
        // v2 serves the same events, their competitors as the home and away teams.
        const v2 = await getV2(`/events/?leagueID=${league}&limit=5`, { tier: "internal" });
        expect(v2.status).toBe(200);
        for (const event of v2.body.data) expect(Object.keys(event.teams)).toEqual(["home", "away"]);
      },
    );

    it("/events/{event_id} and /events/lookup by id and by the bookmakers' own ids find the same event", async () => {
      const event = events.find((candidate) => Object.keys(candidate.external_ids).length > 0);
      const one = await getV1(`/events/${event.event_id}`, { tier: "internal" });
      expectItems(one, v1.v1Event);
      expect(one.body.data.event_id).toBe(event.event_id);
      const byId = await getV1(`/events/lookup?id=${event.event_id}`, { tier: "internal" });
      expect(byId.body.data.map((found: any) => found.event_id)).toEqual([event.event_id]);
      const external = Object.entries(event.external_ids).map(([bookmaker, id]) => `${bookmaker}:${id}`);
      const byExternal = await getV1(`/events/lookup?external_ids=${external.join(",")},tab:no-such-event`, {
        tier: "internal",
      });
      expectItems(byExternal, v1.v1Event);
      expect(byExternal.body.data.map((found: any) => found.event_id)).toEqual([event.event_id]);
    });

    it("odds are grouped by market and outcome, decimal with implied probability, null and never zero", async () => {
      const event = events.find((candidate) => candidate.odds_available);
      const res = await getV1(`/events/${event.event_id}/odds`, { tier: "internal" });
      expectItems(res, v1.v1EventOdds);
      const odds = res.body.data;
      expect(odds.group_by).toBe("market");
      const all = prices(odds);
      expect(all.length).toBeGreaterThan(0);
      for (const price of all) {
        expect(price.decimal_odds === null || price.decimal_odds > 1).toBe(true);
        if (price.decimal_odds !== null) expect(price.implied_probability).toBeCloseTo(1 / price.decimal_odds, 5);
        else expect(price.implied_probability).toBeNull();
      }
      // Usage: the record plus every price it carries.
      const open = all.filter((price) => price.decimal_odds !== null).length;
      expect(res.body.meta.cost.objects).toBe(1 + open);
    });

    it("group_by=bookmaker gives one block per bookmaker with the same prices", async () => {
      const event = events.find((candidate) => candidate.odds_available);
      const byMarket = await getV1(`/events/${event.event_id}/odds`, { tier: "internal" });
      const byBookmaker = await getV1(`/events/${event.event_id}/odds?group_by=bookmaker`, { tier: "internal" });
      expectItems(byBookmaker, v1.v1EventOdds);
      const blocks = byBookmaker.body.data.bookmakers;
      expect(blocks.map((block: any) => block.bookmaker)).toEqual(
        [...new Set(prices(byMarket.body.data).map((price) => price.bookmaker))].sort(),
      );
      expect(byBookmaker.body.meta.cost.objects).toBe(byMarket.body.meta.cost.objects);
    });

    it("/odds filters by bookmaker and market, and the lite plan sees only its bookmakers", async () => {
      const event = events.find((candidate) => candidate.odds_available);
      const full = await getV1(`/events/${event.event_id}/odds`, { tier: "internal" });
      const market = full.body.data.markets[0];
      const bookmaker = prices({ markets: [market] })[0].bookmaker;
      const res = await getV1(`/odds?event_id=${event.event_id}&market_id=${market.market_id}&bookmaker=${bookmaker}`, {
        tier: "internal",
      });
      expectItems(res, v1.v1EventOdds);
      expect(res.body.data[0].markets.map((m: any) => m.market_id)).toEqual([market.market_id]);
      for (const price of prices(res.body.data[0])) expect(price.bookmaker).toBe(bookmaker);
      const lite = await getV1("/odds?limit=20", { apiKey: (await createKey("lite")).apiKey });
      expectItems(lite, v1.v1EventOdds);
      for (const odds of lite.body.data) {
        expect(["AFL", "NRL", "EPL"]).toContain(odds.league_id);
        for (const price of prices(odds))
          expect(["sportsbet", "tab", "ladbrokes_au", "neds"]).toContain(price.bookmaker);
      }
    });
  });

  describe("results", () => {
    it("grades finalized events: nothing pending, every outcome of a settled market has a verdict", async () => {
      const { items } = await readAll("/results?status=finalized&limit=100");
      expect(items.length).toBeGreaterThan(0);
      for (const result of items) {
        expect(v1.v1Result.parse(result)).toEqual(result);
        expect(result.pending_markets).toBe(result.markets.filter((market: any) => !market.settled).length);
        for (const market of result.markets) {
          for (const outcome of market.outcomes) expect(outcome.verdict === null).toBe(!market.settled);
        }
      }
      // Every market of a finalized event settles on a period that has ended: nothing is left pending.
      for (const result of items) expect([result.final, result.pending_markets]).toEqual([true, 0]);
      // Backfilled events too carry the markets they were priced on (but one kicking off as the backfill window opened).
      const windowOpened = Date.now() - 34 * 86_400_000;
      for (const result of items.filter((r) => Date.parse(r.starts_at) > windowOpened))
        expect([result.event_id, result.markets.length > 0]).toEqual([result.event_id, true]);
      // A moneyline of a finished match has exactly one winner unless it was level (both void).
      for (const result of items) {
        const moneyline = result.markets.find((market: any) => market.bet_type === "ml" && market.period_id === "game");
        if (!moneyline?.settled) continue;
        const won = moneyline.outcomes.filter((outcome: any) => outcome.verdict === "won").length;
        const voided = moneyline.outcomes.filter((outcome: any) => outcome.verdict === "void").length;
        expect(won === 1 || voided === moneyline.outcomes.length).toBe(true);
      }
    });

    it.each([
      ["TENNIS", "cs"],
      ["MMA", "pick"],
    ])(
      "%s results name competitor_1 and competitor_2 and settle each market with one winner",
      async (sport, betType) => {
        // The last 7 days: the backfill priced their events' headline markets (older ones: the winner only). A
        // whole week, not less: UFC cards are weekly (early Sunday UTC), so a shorter window holds no fight between
        // the end of a card's last slot six days on and the next card (it failed on a Saturday at 03:10 UTC).
        const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
        const res = await getV1(`/results?sport_id=${sport}&status=finalized&starts_after=${since}&limit=30`, {
          tier: "internal",
        });
        expectItems(res, v1.v1Result);
        expect(res.body.data.length).toBeGreaterThan(0);
        let graded = 0;
        for (const result of res.body.data) {
          expect(result.scores.map((s: any) => s.role)).toEqual(["competitor_1", "competitor_2"]);
          const market = result.markets.find((m: any) => m.bet_type === betType);
          if (!market) continue;
          graded++;
          const verdicts = market.outcomes.map((o: any) => o.verdict);
          // Set betting has exactly one right score; method of victory one, unless a draw voided it.
          expect(
            verdicts.filter((v: string) => v === "won").length === 1 || verdicts.every((v: string) => v === "void"),
          ).toBe(true);
        }
        expect(graded).toBeGreaterThan(0);
      },
    );

    it("a corrected result shows when and what the correction changed; its verdicts agree with the correction", async () => {
      const { items } = await readAll("/results?status=finalized&limit=100");
      const corrected = items.filter((result) => result.corrected_at !== null);
      expect(corrected.length).toBeGreaterThan(0);
      for (const result of corrected) {
        const last = result.corrections.at(-1);
        expect(result.corrected_at).toBe(last.corrected_at);
        expect(last.scores_before).not.toEqual(last.scores);
        const verdicts = new Map(
          result.markets.flatMap((m: any) => m.outcomes.map((o: any) => [o.outcome_id, o.verdict])),
        );
        for (const change of last.outcomes) {
          expect(change.verdict).not.toBe(change.previous_verdict);
          expect(verdicts.get(change.outcome_id)).toBe(change.verdict);
        }
      }
      const uncorrected = items.filter((result) => result.corrected_at === null);
      for (const result of uncorrected) expect(result.corrections).toEqual([]);
    });

    it("/results lists only events that have started; a scheduled event is not there", async () => {
      const res = await getV1("/results?limit=100", { tier: "internal" });
      expectItems(res, v1.v1Result);
      for (const result of res.body.data) expect(result.status).not.toBe("scheduled");
      const scheduled = events.find((event) => event.status === "scheduled");
      if (scheduled) {
        const one = await getV1(`/results?event_id=${scheduled.event_id}`, { tier: "internal" });
        expect(one.body.data).toEqual([]);
      }
    });
  });

  describe("paging", () => {
    it("follows links.next to the end of /events without repeating an event, covering the unpaged list", async () => {
      const { items, pages } = await readAll("/events?limit=3");
      const ids = items.map((event) => event.event_id);
      expect(new Set(ids).size).toBe(ids.length);
      // `events` is the first page of 100 (the whole list when the feed carries fewer).
      expect(ids.slice(0, events.length)).toEqual(events.map((event) => event.event_id));
      if (events.length < 100) expect(ids.length).toBe(events.length);
      expect(pages[pages.length - 1]!.body.links.next).toBeNull();
      if (pages.length > 1) expect(pages[0]!.body.links.next).toContain("limit=3");
    });

    it("pages /players and /odds to the end the same way", async () => {
      const players = await readAll("/players?limit=40");
      const ids = players.items.map((player) => player.player_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(players.pages.length).toBeGreaterThan(1);
      const odds = await readAll("/odds?limit=4&group_by=bookmaker");
      expect(odds.items.map((item) => item.event_id).slice(0, events.length)).toEqual(
        events.map((event) => event.event_id),
      );
    });

    it("a cursor replayed with other filters is a problem naming cursor", async () => {
      const first = await getV1("/events?limit=2", { tier: "internal" });
      const cursor = new URL(first.body.links.next, "http://x").searchParams.get("cursor");
      expectProblem(await getV1(`/events?limit=2&league_id=AFL&cursor=${cursor}`, { tier: "internal" }), 400, /cursor/);
    });
  });

  describe("keys", () => {
    it("refuses a missing key, an unknown key and a valid key sent as x-api-key or apiKey, with 401 problems", async () => {
      expectProblem(await getV1("/sports", { as: "none" }), 401);
      expectProblem(await getV1("/sports", { apiKey: "odds_base_unknown" }), 401);
      expectProblem(await getV1("/sports", { tier: "base", as: "x-api-key" }), 401, /Bearer/);
      const inQuery = await getV1("/sports", { tier: "base", as: "query" });
      expectProblem(inQuery, 401, /Bearer/);
      // The problem names the request it answers, never the key it was sent with.
      expect(inQuery.body.instance).toBe("/v1/sports?apiKey=[REDACTED]");
      expect(JSON.stringify(inQuery.body)).not.toContain(e2eStack().apiKeys.base);
      // The same key works on v2 the v2 way: the keys and plans are the same.
      expect((await getV2("/sports/", { tier: "base" })).status).toBe(200);
    });

    it("answers a deactivated key with a 403 problem", async () => {
      const { apiKey } = await createKey("base", { active: false });
      expectProblem(await getV1("/sports", { apiKey }), 403);
    });

    it("counts usage in objects against the key's limits, as meta states", async () => {
      const { apiKey } = await createKey("base");
      const event = events.find((candidate) => candidate.odds_available);
      const odds = await getV1(`/odds?event_id=${event.event_id}`, { apiKey });
      expect(odds.status).toBe(200);
      const charged = odds.body.meta.cost.objects;
      expect(charged).toBeGreaterThan(1);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const usage = await getV2("/account/usage", { apiKey });
        if (usage.status === 429) {
          // A fully priced event can cost more objects than the base plan's per-second window holds (2,000): the
          // key is then refused until the window turns, and told when to come back.
          const retryAfter = Number(usage.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(Date.now() + retryAfter * 1_000).toBeLessThan(deadline);
          await new Promise((resolve) => setTimeout(resolve, retryAfter * 1_000));
          continue;
        }
        expect(usage.status).toBe(200);
        const day = usage.body.data[0].rateLimits["per-day"];
        if (day["current-entities"] === charged || Date.now() > deadline) {
          expect(day["current-entities"]).toBe(charged);
          expect(day["current-requests"]).toBeGreaterThanOrEqual(2);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  });

  describe("problems", () => {
    it("answers bad parameters, unknown parameters, v2 ids and unknown events with problem+json", async () => {
      expectProblem(await getV1("/events?limit=500", { tier: "internal" }), 400, /^limit: /);
      expectProblem(await getV1("/events?leagueID=AFL", { tier: "internal" }), 400, /^leagueID: not a parameter/);
      const v2 = await getV2("/events/?limit=1&includeFinished=true", { tier: "internal" });
      const v2ID = v2.body.data[0].eventID;
      expectProblem(await getV1(`/events/${v2ID}`, { tier: "internal" }), 400, /^event_id/);
      expectProblem(await getV1(`/events?event_id=${v2ID}`, { tier: "internal" }), 400, /^event_id/);
      const nothing = await getV1(`/events/${v1.v1Id("event", "NO_SUCH_EVENT")}`, { tier: "internal" });
      expectProblem(nothing, 404);
      expect(nothing.body.instance).toMatch(/^\/v1\/events\/ev_/);
      expectProblem(await getV1("/no-such-route", { tier: "internal" }), 404);
    });
  });

  describe("documents", () => {
    it("/v1/openapi.json is valid and lists every route; /v1/docs renders it", async () => {
      const doc = await getV1("/openapi.json", { as: "none" });
      expect(doc.status).toBe(200);
      await SwaggerParser.validate(structuredClone(doc.body));
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining(["/sports", "/events/{event_id}/odds", "/odds", "/events/lookup"]),
      );
      const page = await getV1("/docs", { as: "none" });
      expect(page.status).toBe(200);
      expect(String(page.body)).toContain("/v1/docs/init.js");
    });

    it("leaves v2 as it was: its envelope, its ids and its key header", async () => {
      const res = await getV2("/events/?limit=1&includeFinished=true", { tier: "internal" });
      expect(res.body.success).toBe(true);
      expect(res.body.data[0].eventID).not.toMatch(/^ev_/);
      expect((await getV2("/sports/", { apiKey: null })).body).toEqual({ success: false, error: "Invalid API key" });
    });
  });
});
