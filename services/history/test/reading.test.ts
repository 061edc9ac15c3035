import { status } from "@grpc/grpc-js";
import { type history } from "@odds/proto";
import { DAY_MS, type TickDocument } from "../src/ticks";
import {
  daysAgo,
  EVERYTHING,
  ML_AWAY,
  ML_HOME,
  newEvent,
  NOW,
  quote,
  readAllPages,
  snapshot,
  startHistory,
  startOwnFerretDb,
  type HistoryUnderTest,
} from "./harness";
import { TICK_LAYOUTS } from "../src/tick-tier";

describe.each(TICK_LAYOUTS)("history reading (ListTicks, %s layout) against real stores", (layout) => {
  let archiveServer: Awaited<ReturnType<typeof startOwnFerretDb>>;
  let service: HistoryUnderTest;

  beforeAll(async () => {
    archiveServer = await startOwnFerretDb(`history-archive-reading-${layout}`);
    service = await startHistory({ archiveUri: `${archiveServer.url}/history_archive`, layout });
  });

  afterAll(async () => {
    await service.stop();
    await archiveServer.stop();
  });

  async function rejection(request: Partial<history.ListTicksRequest>): Promise<{ code: number; details: string }> {
    const err = await service.list(request).then(
      () => undefined,
      (e: unknown) => e as { code: number; details: string },
    );
    if (!err) throw new Error("expected the call to fail");
    return err;
  }

  it("rejects a request without eventID as an invalid eventID", async () => {
    const err = await rejection({ eventId: "" });
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^eventID: /);
  });

  it("answers NOT_FOUND for an event it has never recorded", async () => {
    const err = await rejection({ eventId: "AFL_2026-10-01_nobody_vs_noone" });
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it("answers NOT_FOUND for an event outside the caller's plan leagues", async () => {
    const event = newEvent(daysAgo(2), "EPL");
    await service.record({ events: [event], snapshots: [snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)])] });
    const aflOnly = { ...EVERYTHING, allLeagues: false, leagueIds: ["AFL"] };
    expect((await rejection({ eventId: event.eventId, caller: aflOnly })).code).toBe(status.NOT_FOUND);
    expect((await service.list({ eventId: event.eventId })).items).toHaveLength(1);
  });

  it("rejects a from/to span over 400 days with a message naming from and to", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({ events: [event], snapshots: [snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)])] });
    const err = await rejection({ eventId: event.eventId, fromMs: NOW - 401 * DAY_MS, toMs: NOW });
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/from and to span more than 400 days/);
    // Exactly 400 days is allowed.
    const ok = await service.list({ eventId: event.eventId, fromMs: NOW - 400 * DAY_MS, toMs: NOW });
    expect(ok.items).toHaveLength(1);
  });

  it("defaults the window to 21 days before the kickoff date through 2 days after kickoff, end exclusive", async () => {
    const kickoff = Date.UTC(2026, 9, 20, 9, 30);
    const kickoffDate = Date.UTC(2026, 9, 20);
    const event = newEvent(kickoff);
    const at = (ms: number) => snapshot(event, ms, [quote(ML_HOME, 1.9)], { bookmakerId: `b${ms}` });
    const firstIn = kickoffDate - 21 * DAY_MS;
    const lastIn = kickoff + 2 * DAY_MS - 60_000;
    await service.record({
      events: [event],
      snapshots: [at(firstIn - 60_000), at(firstIn), at(kickoff), at(lastIn), at(kickoff + 2 * DAY_MS)],
    });
    const { items } = await service.list({ eventId: event.eventId });
    expect(items.map((tick) => tick.changedAt)).toEqual(
      [firstIn, kickoff, lastIn].map((ms) => new Date(ms).toISOString()),
    );
  });

  it("caps the window end at now", async () => {
    const event = newEvent(NOW + 3 * 60_000);
    await service.record({
      events: [event],
      snapshots: [snapshot(event, daysAgo(1), [quote(ML_HOME, 1.9)])],
    });
    // A tick stamped in the future (a skewed clock) is outside a window capped at now.
    await service.stores.live.upsertTicks([futureTick(event.eventId, NOW + 60 * 60_000)]);
    const { items } = await service.list({ eventId: event.eventId });
    expect(items).toHaveLength(1);
  });

  it("never returns ticks before capture began on 2026-08-14", async () => {
    const event = newEvent(Date.UTC(2026, 7, 20));
    await service.record({
      events: [event],
      snapshots: [snapshot(event, Date.UTC(2026, 7, 13, 12), [quote(ML_HOME, 1.9)])],
    });
    await service.record({
      events: [event],
      snapshots: [snapshot(event, Date.UTC(2026, 7, 14, 0, 1), [quote(ML_HOME, 1.9)])],
    });
    // Even one stored by hand (the recorder drops such observations) stays invisible.
    await service.stores.live.upsertTicks([futureTick(event.eventId, Date.UTC(2026, 7, 13, 12))]);
    const { items } = await service.list({ eventId: event.eventId, fromMs: Date.UTC(2026, 7, 1) });
    expect(items.map((tick) => tick.changedAt)).toEqual([new Date(Date.UTC(2026, 7, 14, 0, 1)).toISOString()]);
  });

  it("filters by oddID list and bookmakerID list", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)], { bookmakerId: "sportsbet" }),
        snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)], { bookmakerId: "tab" }),
        snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)], { bookmakerId: "ladbrokes" }),
      ],
    });
    const { items } = await service.list({
      eventId: event.eventId,
      oddIds: [ML_AWAY],
      bookmakerIds: ["tab", "ladbrokes"],
    });
    expect(items.map((tick) => `${tick.bookmakerID} ${tick.oddID}`).sort()).toEqual([
      `ladbrokes ${ML_AWAY}`,
      `tab ${ML_AWAY}`,
    ]);
  });

  it("matches every player with PLAYER_ID in the oddID filter", async () => {
    const event = newEvent(daysAgo(2));
    const prop = (player: string) => `disposals-${player}-game-ou-over`;
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, daysAgo(3), [
          quote(prop("NAT_FYFE_1_AFL"), 1.9),
          quote(prop("CLAYTON_OLIVER_1_AFL"), 1.9),
          quote(prop("all"), 1.9),
          quote(ML_HOME, 1.9),
        ]),
      ],
    });
    const { items } = await service.list({ eventId: event.eventId, oddIds: [prop("PLAYER_ID")] });
    expect(items.map((tick) => tick.oddID).sort()).toEqual([prop("CLAYTON_OLIVER_1_AFL"), prop("NAT_FYFE_1_AFL")]);
  });

  it("applies the plan's bookmaker cap, also to an explicit bookmakerID filter", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)], { bookmakerId: "sportsbet" }),
        snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)], { bookmakerId: "pinnacle" }),
      ],
    });
    const capped = { ...EVERYTHING, allBookmakers: false, bookmakerIds: ["sportsbet"] };
    const all = await service.list({ eventId: event.eventId, caller: capped });
    expect(all.items.map((tick) => tick.bookmakerID)).toEqual(["sportsbet"]);
    const asked = await service.list({ eventId: event.eventId, caller: capped, bookmakerIds: ["pinnacle"] });
    expect(asked.items).toEqual([]);
  });

  it("keeps only the highest-ranked source with a tick in the window for the whole window", async () => {
    const event = newEvent(daysAgo(2));
    const primary = { sourceId: "primary", sourceRank: 20 };
    const fallback = { sourceId: "fallback", sourceRank: 10 };
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, daysAgo(5), [quote(ML_HOME, 2.0)], fallback),
        snapshot(event, daysAgo(5, 5), [quote(ML_HOME, 2.1)], fallback),
        snapshot(event, daysAgo(4), [quote(ML_HOME, 2.2)], primary),
        snapshot(event, daysAgo(4, 5), [quote(ML_HOME, 2.3)], fallback),
        snapshot(event, daysAgo(3), [quote(ML_HOME, 2.4)], primary),
      ],
    });
    const whole = await service.list({ eventId: event.eventId, fromMs: daysAgo(6), toMs: daysAgo(2) });
    expect(whole.items.map((tick) => tick.decimalOdds)).toEqual([2.2, 2.4]);
    // Where the higher-ranked source has no tick in the window, the lower one is the series.
    const early = await service.list({ eventId: event.eventId, fromMs: daysAgo(6), toMs: daysAgo(4, -1) });
    expect(early.items.map((tick) => tick.decimalOdds)).toEqual([2.0, 2.1]);
  });

  it("orders ticks by changedAt then tick id, and pages with a cursor that concatenates to the unpaged series", async () => {
    const event = newEvent(daysAgo(2));
    const books = ["sportsbet", "tab", "neds", "ladbrokes", "pointsbet"];
    const snapshots: history.BookSnapshot[] = [];
    for (let minute = 0; minute < 20; minute += 1) {
      for (const bookmakerId of books) {
        snapshots.push(
          snapshot(event, daysAgo(3, minute), [quote(ML_HOME, 1.5 + ((minute * 7) % 10) / 10), quote(ML_AWAY, 2.5)], {
            bookmakerId,
          }),
        );
      }
    }
    await service.record({ events: [event], snapshots });
    const unpaged = await service.list({ eventId: event.eventId, limit: 5000 });
    expect(unpaged.nextCursor).toBe("");
    const keys = unpaged.items.map((tick) => tick.changedAt);
    expect([...keys].sort()).toEqual(keys);

    const paged = await readAllPages(service, { eventId: event.eventId, limit: 7 });
    expect(paged.pages).toBe(Math.ceil(unpaged.items.length / 7));
    expect(paged.items).toEqual(unpaged.items);
  });

  it("rejects a cursor replayed with other filters", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)])],
    });
    const first = await service.list({ eventId: event.eventId, limit: 1 });
    expect(first.nextCursor).not.toBe("");
    const err = await rejection({ eventId: event.eventId, oddIds: [ML_HOME], cursor: first.nextCursor });
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^cursor: /);
  });

  it("rejects a limit above 5000", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({ events: [event], snapshots: [snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)])] });
    const err = await rejection({ eventId: event.eventId, limit: 5001 });
    expect(err).toMatchObject({ code: status.INVALID_ARGUMENT, details: "limit: at most 5000" });
  });
});

function futureTick(eventID: string, atMs: number): TickDocument {
  return {
    _id: `manual-${eventID}-${atMs}`,
    eventID,
    oddID: ML_AWAY,
    bookmakerID: "sportsbet",
    sourceID: "feed-a",
    sourceRank: 10,
    seriesKey: "sportsbet|feed-a",
    changedAt: new Date(atMs),
    day: new Date(atMs).toISOString().slice(0, 10),
    kind: "open",
    bookOdds: "+100",
    decimalOdds: 2,
    previousBookOdds: null,
    previousDecimalOdds: null,
    line: null,
    isMainLine: null,
    layOdds: null,
    maxStake: null,
    previousMaxStake: null,
  };
}
