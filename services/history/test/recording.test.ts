import { type history } from "@odds/proto";
import { BookStateStore } from "../src/book-states";
import { EventRefStore } from "../src/event-refs";
import { QuoteRecorder, snapshotsByEvent, type EventSnapshots } from "../src/recorder";
import { TickTier } from "../src/tick-tier";
import type { BookSnapshot, TickDocument } from "../src/ticks";
import {
  daysAgo,
  ML_AWAY,
  ML_HOME,
  newEvent,
  quote,
  snapshot,
  startHistory,
  startOwnFerretDb,
  TOTAL_OVER,
  type HistoryUnderTest,
} from "./harness";

describe("history recording (RecordQuotes) against real stores", () => {
  let archiveServer: Awaited<ReturnType<typeof startOwnFerretDb>>;
  let service: HistoryUnderTest;

  beforeAll(async () => {
    archiveServer = await startOwnFerretDb("history-archive-recording");
    service = await startHistory({ archiveUri: `${archiveServer.url}/history_archive` });
  });

  afterAll(async () => {
    await service.stop();
    await archiveServer.stop();
  });

  const t = (minute: number) => daysAgo(3, minute);

  const refsOf = (request: Pick<history.RecordQuotesRequest, "events">) =>
    request.events.map((event) => ({
      eventID: event.eventId,
      sportID: event.sportId,
      leagueID: event.leagueId,
      startsAtMs: event.startsAtMs,
    }));
  const bookSnapshot = (book: history.BookSnapshot): BookSnapshot => ({
    eventID: book.eventId,
    bookmakerID: book.bookmakerId,
    sourceID: book.sourceId,
    sourceRank: book.sourceRank,
    observedAtMs: book.observedAtMs,
    quotes: book.quotes.map((q) => ({ oddID: q.oddId, decimalOdds: q.decimalOdds, available: q.available })),
  });
  const eventsOf = (request: Pick<history.RecordQuotesRequest, "snapshots">): EventSnapshots[] =>
    snapshotsByEvent(request.snapshots, (book) => book.eventId, bookSnapshot);

  /** Records through a freshly started recorder: its books rebuilt from the stored ticks. */
  const recordRestarted = (request: history.RecordQuotesRequest) =>
    service.freshRecorder().record(refsOf(request), eventsOf(request));
  const window = (event: history.EventRef) => ({ eventId: event.eventId, fromMs: t(0) - 60_000, toMs: t(600) });

  it("records open for a first quote, move on a price change, limit on a maxStake-only change, close when withdrawn and open again when it reappears", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(0), [quote(ML_HOME, 1.9, { maxStake: 500 }), quote(ML_AWAY, 2.0, { maxStake: 500 })]),
        snapshot(event, t(2), [quote(ML_HOME, 1.8, { maxStake: 500 }), quote(ML_AWAY, 2.0, { maxStake: 500 })]),
        snapshot(event, t(4), [quote(ML_HOME, 1.8, { maxStake: 250 }), quote(ML_AWAY, 2.0, { maxStake: 500 })]),
        snapshot(event, t(6), [quote(ML_AWAY, 2.0, { maxStake: 500 })]),
        snapshot(event, t(8), [quote(ML_HOME, 1.85, { maxStake: 250 }), quote(ML_AWAY, 2.0, { maxStake: 500 })]),
      ],
    });

    const { items } = await service.list({ ...window(event), oddIds: [ML_HOME] });
    expect(items.map((tick) => tick.kind)).toEqual(["open", "move", "limit", "close", "open"]);
    expect(items[0]).toEqual({
      eventID: event.eventId,
      oddID: ML_HOME,
      bookmakerID: "sportsbet",
      changedAt: new Date(t(0)).toISOString(),
      kind: "open",
      bookOdds: "-111",
      decimalOdds: 1.9,
      previousBookOdds: null,
      previousDecimalOdds: null,
      line: null,
      isMainLine: null,
      layOdds: null,
      maxStake: 500,
      previousMaxStake: null,
    });
    expect(items[1]).toMatchObject({ bookOdds: "-125", decimalOdds: 1.8, previousBookOdds: "-111", maxStake: 500 });
    expect(items[2]).toMatchObject({ kind: "limit", decimalOdds: 1.8, maxStake: 250, previousMaxStake: 500 });
    expect(items[3]).toMatchObject({
      kind: "close",
      bookOdds: null,
      decimalOdds: null,
      previousDecimalOdds: 1.8,
      maxStake: null,
      previousMaxStake: 250,
      changedAt: new Date(t(6)).toISOString(),
    });
    expect(items[4]).toMatchObject({ kind: "open", decimalOdds: 1.85, previousBookOdds: null });

    const away = await service.list({ ...window(event), oddIds: [ML_AWAY] });
    expect(away.items.map((tick) => tick.kind)).toEqual(["open"]);
  });

  it("records a move when only the line or only the main-line status changes, with the line on the tick", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(10), [quote(TOTAL_OVER, 1.9, { line: 45.5, isMainLine: true })]),
        snapshot(event, t(12), [quote(TOTAL_OVER, 1.9, { line: 46.5, isMainLine: true })]),
        snapshot(event, t(14), [quote(TOTAL_OVER, 1.9, { line: 46.5, isMainLine: false })]),
      ],
    });
    const { items } = await service.list(window(event));
    expect(items.map((tick) => [tick.kind, tick.line, tick.isMainLine])).toEqual([
      ["open", 45.5, true],
      ["move", 46.5, true],
      ["move", 46.5, false],
    ]);
  });

  it("records a move when an exchange's lay price changes", async () => {
    const event = newEvent(daysAgo(2));
    const book = { bookmakerId: "betfair_ex_au" };
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(10), [quote(ML_HOME, 2.1, { layOdds: 2.14 })], book),
        snapshot(event, t(12), [quote(ML_HOME, 2.1, { layOdds: 2.16 })], book),
      ],
    });
    const { items } = await service.list(window(event));
    expect(items.map((tick) => [tick.kind, tick.layOdds])).toEqual([
      ["open", 2.14],
      ["move", 2.16],
    ]);
  });

  it("closes a quote that goes suspended (available=false) and opens it when it is available again", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(20), [quote(ML_HOME, 1.9)]),
        snapshot(event, t(22), [quote(ML_HOME, 1.9, { available: false })]),
        snapshot(event, t(24), [quote(ML_HOME, 1.9, { available: false })]),
        snapshot(event, t(26), [quote(ML_HOME, 1.95)]),
      ],
    });
    const { items } = await service.list(window(event));
    expect(items.map((tick) => [tick.kind, tick.changedAt])).toEqual([
      ["open", new Date(t(20)).toISOString()],
      ["close", new Date(t(22)).toISOString()],
      ["open", new Date(t(26)).toISOString()],
    ]);
  });

  it("records nothing for a quote that did not change", async () => {
    const event = newEvent(daysAgo(2));
    const first = await service.record({ events: [event], snapshots: [snapshot(event, t(30), [quote(ML_HOME, 1.9)])] });
    const unchanged = await service.record({
      events: [event],
      snapshots: [snapshot(event, t(32), [quote(ML_HOME, 1.9)]), snapshot(event, t(34), [quote(ML_HOME, 1.9)])],
    });
    expect(first.ticksRecorded).toBe(1);
    expect(unchanged.ticksRecorded).toBe(0);
    expect((await service.list(window(event))).items).toHaveLength(1);
  });

  it("replaying the same snapshots, even after a restart, records no duplicate ticks", async () => {
    const event = newEvent(daysAgo(2));
    const request = {
      events: [event],
      snapshots: [
        snapshot(event, t(40), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)]),
        snapshot(event, t(42), [quote(ML_HOME, 1.8)]),
      ],
    };
    await service.record(request);
    const before = await service.stores.live.countTicks(event.eventId);
    // open, open, move, and the close of the away quote missing from the second snapshot.
    expect(before).toBe(4);

    expect((await service.record(request)).ticksRecorded).toBe(0);
    // A restarted process reloads the last-quote state from the store.
    const replay = await recordRestarted(request);
    expect(replay.ticksRecorded).toBe(0);
    expect(await service.stores.live.countTicks(event.eventId)).toBe(before);
  });

  it("a restarted process rebuilds its books from ticks over several hours, oldest hour first", async () => {
    const event = newEvent(daysAgo(2));
    // Three snapshots an hour or more apart: three hour buckets.
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(40), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0), quote(TOTAL_OVER, 1.85)]),
        snapshot(event, t(100), [quote(ML_HOME, 1.8)]),
        snapshot(event, t(170), [quote(ML_HOME, 1.8), quote(TOTAL_OVER, 1.9)]),
      ],
    });
    const recorded = await service.stores.live.bucketsOfEvent(event.eventId);
    expect(recorded.length).toBe(3);
    // Held after the log: home at 1.8 (moved in the second hour), over at 1.9 (reopened in the third), away closed.
    const same = await recordRestarted({
      events: [event],
      snapshots: [snapshot(event, t(200), [quote(ML_HOME, 1.8), quote(TOTAL_OVER, 1.9)])],
    });
    expect(same.ticksRecorded).toBe(0);
    const reopened = await recordRestarted({
      events: [event],
      snapshots: [snapshot(event, t(210), [quote(ML_HOME, 1.8), quote(TOTAL_OVER, 1.9), quote(ML_AWAY, 2.1)])],
    });
    expect(reopened.ticksRecorded).toBe(1);
  });

  it("a restarted process stores a moved kickoff of an event it already knew, and keeps an unchanged ref", async () => {
    const event = newEvent(daysAgo(3));
    await service.record({ events: [event], snapshots: [snapshot(event, daysAgo(4), [quote(ML_HOME, 1.9)])] });
    const ref = {
      eventID: event.eventId,
      sportID: event.sportId,
      leagueID: event.leagueId,
      startsAtMs: event.startsAtMs,
    };
    const moved = { ...ref, startsAtMs: event.startsAtMs + 3_600_000 };

    await new EventRefStore(service.stores.liveDb).save([ref]);
    expect(await new EventRefStore(service.stores.liveDb).get(event.eventId)).toEqual(ref);
    await new EventRefStore(service.stores.liveDb).save([moved]);
    expect(await new EventRefStore(service.stores.liveDb).get(event.eventId)).toEqual(moved);
  });

  it("ignores a snapshot older than the state it holds, so an out-of-order replay does not regress it", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [snapshot(event, t(50), [quote(ML_HOME, 1.9)]), snapshot(event, t(54), [quote(ML_HOME, 1.7)])],
    });
    const stale = await service.record({ events: [event], snapshots: [snapshot(event, t(52), [quote(ML_HOME, 2.2)])] });
    expect(stale.ticksRecorded).toBe(0);
    // The next real snapshot still compares with 1.7, not with the stale 2.2.
    await service.record({ events: [event], snapshots: [snapshot(event, t(56), [quote(ML_HOME, 1.7)])] });
    const { items } = await service.list(window(event));
    expect(items.map((tick) => [tick.kind, tick.decimalOdds])).toEqual([
      ["open", 1.9],
      ["move", 1.7],
    ]);
  });

  it("keeps each source of a bookmaker as its own last-quote state", async () => {
    const event = newEvent(daysAgo(2));
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, t(60), [quote(ML_HOME, 1.9)], { sourceId: "feed-a" }),
        snapshot(event, t(60), [quote(ML_HOME, 1.9)], { sourceId: "feed-b", sourceRank: 5 }),
        // feed-b withdrawing its quote does not close feed-a's.
        snapshot(event, t(62), [], { sourceId: "feed-b", sourceRank: 5 }),
      ],
    });
    expect(await service.stores.live.countTicks(event.eventId)).toBe(3);
    const { items } = await service.list(window(event));
    expect(items.map((tick) => tick.kind)).toEqual(["open"]);
  });
  it("records a call's snapshots event by event, whatever their order in the call", async () => {
    const [a, b] = [newEvent(daysAgo(2)), newEvent(daysAgo(2))];
    await service.record({
      events: [a, b],
      snapshots: [
        snapshot(a, t(72), [quote(ML_HOME, 1.7)]),
        snapshot(b, t(70), [quote(ML_HOME, 2.5)]),
        snapshot(a, t(70), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)]),
        snapshot(b, t(72), [quote(ML_HOME, 2.5)], { bookmakerId: "tab" }),
      ],
    });
    // Ticks of one instant come in tick id order: compared as a set per instant.
    const kinds = async (event: history.EventRef) =>
      (await service.list(window(event))).items
        .map((tick) => [tick.changedAt, tick.bookmakerID, tick.kind, tick.decimalOdds].join(" "))
        .sort();
    const at = (minute: number) => new Date(t(minute)).toISOString();
    expect(await kinds(a)).toEqual([
      `${at(70)} sportsbet open 1.9`,
      `${at(70)} sportsbet open 2`,
      `${at(72)} sportsbet close `,
      `${at(72)} sportsbet move 1.7`,
    ]);
    expect(await kinds(b)).toEqual([`${at(70)} sportsbet open 2.5`, `${at(72)} tab open 2.5`]);
  });

  it("makes an event's snapshots only once the events before it in the call are written", async () => {
    const [a, b] = [newEvent(daysAgo(2)), newEvent(daysAgo(2))];
    const request = {
      events: [a, b],
      snapshots: [
        snapshot(a, t(80), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)]),
        snapshot(b, t(80), [quote(ML_HOME, 2.5)]),
      ],
    };
    const [first, second] = eventsOf(request);
    // Counted from the store at the moment the second event's snapshots are made.
    let heldWhenMade: Promise<number> | undefined;
    const secondCounting: EventSnapshots = {
      eventID: second!.eventID,
      snapshots: () => {
        heldWhenMade = service.stores.live.countTicks(a.eventId);
        return second!.snapshots();
      },
    };
    expect((await service.freshRecorder().record(refsOf(request), [first!, secondCounting])).ticksRecorded).toBe(3);
    expect(await heldWhenMade).toBe(2);
  });

  it("a call that failed part-way and is sent again loses and doubles no tick, and notes every day written", async () => {
    const [a, b] = [newEvent(daysAgo(2)), newEvent(daysAgo(2))];
    /** The live tier, failing the first write of event b's ticks (after event a's were written). */
    class FailingOnce extends TickTier {
      failed = false;
      override async upsertTicks(ticks: TickDocument[]): Promise<void> {
        if (!this.failed && ticks.some((tick) => tick.eventID === b.eventId)) {
          this.failed = true;
          throw new Error("live store stalled");
        }
        await super.upsertTicks(ticks);
      }
    }
    const live = new FailingOnce("live", service.stores.liveDb);
    const recorder = new QuoteRecorder(live, new BookStateStore(live), new EventRefStore(service.stores.liveDb));
    const request = {
      events: [a, b],
      snapshots: [
        snapshot(a, t(90), [quote(ML_HOME, 1.9), quote(ML_AWAY, 2.0)]),
        snapshot(a, t(92), [quote(ML_HOME, 1.8)]),
        snapshot(b, t(90), [quote(ML_HOME, 2.5)]),
      ],
    };
    const days = async () =>
      (await live.listDays()).filter((day) => day.eventID === a.eventId || day.eventID === b.eventId);

    await expect(recorder.record(refsOf(request), eventsOf(request))).rejects.toThrow("live store stalled");
    expect(await live.countTicks(a.eventId)).toBe(4);
    expect(await live.countTicks(b.eventId)).toBe(0);

    // Sent again whole: compared with the same books, so a's ticks are rewritten by id (no-ops) and noted.
    expect((await recorder.record(refsOf(request), eventsOf(request))).ticksRecorded).toBe(5);
    expect(await live.countTicks(a.eventId)).toBe(4);
    expect(await live.countTicks(b.eventId)).toBe(1);
    const day = new Date(t(90)).toISOString().slice(0, 10);
    expect(await days()).toEqual(
      expect.arrayContaining([
        { day, eventID: a.eventId },
        { day, eventID: b.eventId },
      ]),
    );
    expect(await days()).toHaveLength(2);
    // And the books moved on: the same call a third time records nothing.
    expect((await recorder.record(refsOf(request), eventsOf(request))).ticksRecorded).toBe(0);
  });
});
