import { status } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import { history, oddId, v1 } from "@odds/proto";
import { EventRefStore } from "../src/event-refs";
import {
  EVERYTHING,
  ML_AWAY,
  ML_HOME,
  newEvent,
  NOW,
  quote,
  snapshot,
  startHistory,
  startOwnFerretDb,
  type HistoryUnderTest,
} from "./harness";

const HOUR = 3_600_000;
/** A whole minute a few hours before now: inside every league's v1 history. */
const at = (hoursAgo: number, minute = 0) => Math.floor((NOW - hoursAgo * HOUR) / 60_000) * 60_000 + minute * 60_000;

describe("v1 odds history (ListTicks view v1) against real stores", () => {
  let archiveServer: Awaited<ReturnType<typeof startOwnFerretDb>>;
  let service: HistoryUnderTest;
  const event = newEvent(at(-2), "NBA");
  const v1EventID = v1.v1Id("event", event.eventId);

  beforeAll(async () => {
    archiveServer = await startOwnFerretDb("history-archive-v1");
    service = await startHistory({ archiveUri: `${archiveServer.url}/history_archive` });
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, at(5), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.05)]),
        snapshot(event, at(4), [quote(ML_HOME, 1.85), quote(ML_AWAY, 2.1)]),
        snapshot(event, at(3), [quote(ML_HOME, 1.8)]),
      ],
    });
  });

  afterAll(async () => {
    await service.stop();
    await archiveServer.stop();
  });

  async function listV1(request: Partial<history.ListTicksRequest>) {
    const page = await callUnary(
      service.client,
      service.client.listTicks,
      history.ListTicksRequest.fromPartial({ caller: EVERYTHING, view: "v1", ...request }),
    );
    return { ...page, ticks: page.items.map((item) => v1.v1OddsTick.parse(JSON.parse(Buffer.from(item).toString()))) };
  }

  async function rejection(request: Partial<history.ListTicksRequest>) {
    const err = await listV1(request).then(
      () => undefined,
      (e: unknown) => e as { code: number; details: string },
    );
    if (!err) throw new Error("expected the call to fail");
    return err;
  }

  it("serves one event's ticks by its v1 id in v1's shape: v1 ids, decimal prices, null on close", async () => {
    const page = await listV1({ eventId: v1EventID, fromMs: at(6), toMs: at(1) });
    // Oldest first; ticks of one instant in a stable but arbitrary order, so compared per instant.
    const seen = page.ticks.map((tick) => [
      tick.changed_at,
      tick.outcome_id,
      tick.kind,
      tick.decimal_odds,
      tick.previous_decimal_odds,
    ]);
    const [home, away] = [v1.v1Id("outcome", ML_HOME), v1.v1Id("outcome", ML_AWAY)];
    const instant = (hoursAgo: number) => new Date(at(hoursAgo)).toISOString();
    expect(seen.map((row) => row[0])).toEqual([5, 5, 4, 4, 3, 3].map(instant));
    expect(seen).toEqual(
      expect.arrayContaining([
        [instant(5), away, "open", 2.05, null],
        [instant(5), home, "open", 1.9, null],
        [instant(4), away, "move", 2.1, 2.05],
        [instant(4), home, "move", 1.85, 1.9],
        [instant(3), away, "close", null, 2.1],
        [instant(3), home, "move", 1.8, 1.85],
      ]),
    );
    const market = v1.v1Id("market", oddId.marketGroupID(oddId.parseOddID(ML_HOME)));
    for (const tick of page.ticks) {
      expect(tick.event_id).toBe(v1EventID);
      expect(tick.market_id).toBe(market);
      expect(tick.bookmaker).toBe("sportsbet");
      expect(tick.implied_probability).toEqual(
        tick.decimal_odds === null ? null : expect.closeTo(1 / tick.decimal_odds, 6),
      );
    }
    // 1 per tick plus 1 per price: 6 ticks, 5 with a price.
    expect(page.objects).toBe(11);
  });

  it("filters by outcome_id and market_id (v1 ids)", async () => {
    const home = await listV1({
      eventId: v1EventID,
      fromMs: at(6),
      toMs: at(1),
      outcomeIds: [v1.v1Id("outcome", ML_HOME)],
    });
    expect(home.ticks.map((tick) => tick.decimal_odds)).toEqual([1.9, 1.85, 1.8]);
    const other = await listV1({ eventId: v1EventID, fromMs: at(6), toMs: at(1), marketIds: [v1.v1Id("market", "x")] });
    expect(other.ticks).toEqual([]);
  });

  it("pages with a cursor bound to the query", async () => {
    const first = await listV1({ eventId: v1EventID, fromMs: at(6), toMs: at(1), limit: 4 });
    expect(first.ticks).toHaveLength(4);
    const second = await listV1({ eventId: v1EventID, fromMs: at(6), toMs: at(1), limit: 4, cursor: first.nextCursor });
    expect(second.ticks).toHaveLength(2);
    expect(second.nextCursor).toBe("");
    const replayed = await rejection({
      eventId: v1EventID,
      fromMs: at(7),
      toMs: at(1),
      limit: 4,
      cursor: first.nextCursor,
    });
    expect(replayed.code).toBe(status.INVALID_ARGUMENT);
  });

  it("refuses a window longer than 24 hours naming to, and defaults to the 24 hours before now", async () => {
    const long = await rejection({ eventId: v1EventID, fromMs: at(30), toMs: at(5, 59) });
    expect(long.code).toBe(status.INVALID_ARGUMENT);
    expect(long.details).toMatch(/^to: .*24 hours/);
    const exactly = await listV1({ eventId: v1EventID, fromMs: at(30), toMs: at(6) });
    expect(exactly.ticks).toEqual([]);
    expect((await listV1({ eventId: v1EventID })).ticks).toHaveLength(6);
  });

  it("refuses a from before the league's history start, which is per league", async () => {
    const nba = await rejection({ eventId: v1EventID, fromMs: Date.UTC(2026, 9, 7, 12) });
    expect(nba.code).toBe(status.INVALID_ARGUMENT);
    expect(nba.details).toMatch(/^from: NBA history starts at 2026-10-08T00:00:00.000Z/);
    const afl = newEvent(at(-2), "AFL");
    await service.record({ events: [afl], snapshots: [snapshot(afl, at(3), [quote(ML_HOME, 1.5)])] });
    const converted = await listV1({
      eventId: v1.v1Id("event", afl.eventId),
      fromMs: Date.UTC(2026, 0, 2),
      toMs: Date.UTC(2026, 0, 3),
    });
    expect(converted.ticks).toEqual([]);
    const beforeConverted = await rejection({ eventId: v1.v1Id("event", afl.eventId), fromMs: Date.UTC(2025, 11, 21) });
    expect(beforeConverted.details).toMatch(/^from: AFL history starts at 2025-12-22/);
  });

  it("answers NOT_FOUND for a v2 id or an unknown v1 id, naming event_id", async () => {
    for (const eventId of [event.eventId, "ev_aaaaaaaaaaaa"]) {
      const err = await rejection({ eventId });
      expect(err.code).toBe(status.NOT_FOUND);
      expect(err.details).toMatch(/^event_id: /);
    }
  });

  it("gives event refs stored before v1 ids existed their v1 id when it prepares", async () => {
    const old = newEvent(at(-2), "EPL");
    await service.stores.liveDb.collection("events").insertOne({
      _id: old.eventId as never,
      sportID: old.sportId,
      leagueID: old.leagueId,
      startsAt: new Date(old.startsAtMs),
    });
    const refs = new EventRefStore(service.stores.liveDb);
    expect(await refs.getByV1Id(v1.v1Id("event", old.eventId))).toBeUndefined();
    await refs.prepare();
    expect((await refs.getByV1Id(v1.v1Id("event", old.eventId)))?.eventID).toBe(old.eventId);
  });
});
