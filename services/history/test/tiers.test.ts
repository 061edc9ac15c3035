import { status } from "@grpc/grpc-js";
import { testMongoUri } from "@odds/local";
import type { history } from "@odds/proto";
import { READ_CAP_PER_TIER, REVISION_TRUST_MS } from "../src/reader";
import { ARCHIVE_DOWN_NOTICE } from "../src/tier-merge";
import { HeldQuotes } from "../src/held-quotes";
import { diffSnapshot, type TickDocument } from "../src/ticks";
import {
  daysAgo,
  ML_AWAY,
  ML_HOME,
  newEvent,
  quote,
  readAllPages,
  snapshot,
  startHistory,
  startOwnFerretDb,
  type HistoryUnderTest,
} from "./harness";
import { bucketCollectionOf, TICK_LAYOUTS, type TickLayout, type TickTier } from "../src/tick-tier";
import { BookStateStore, bookKeyOf } from "../src/book-states";
import { bucketId, encodeBucket, hourOf, storedTicksOf, type BucketDocument } from "../src/tick-buckets";
import { packJsonArray, unpackJson } from "@odds/platform";
import { Binary, type Db } from "mongodb";

/** An event whose ticks straddle the 28-day live retention: 40 to 20 days ago, every 6 hours, two bookmakers. */
async function recordStraddlingEvent(service: HistoryUnderTest): Promise<history.EventRef> {
  const event = newEvent(daysAgo(20));
  const snapshots: history.BookSnapshot[] = [];
  for (let hour = 0; hour <= 20 * 24; hour += 6) {
    const at = daysAgo(40) + hour * 3_600_000;
    const price = 1.5 + ((hour / 6) % 7) / 10;
    for (const bookmakerId of ["sportsbet", "tab"]) {
      snapshots.push(snapshot(event, at, [quote(ML_HOME, price), quote(ML_AWAY, 4 - price)], { bookmakerId }));
    }
  }
  await service.record({ events: [event], snapshots });
  return event;
}

describe.each(TICK_LAYOUTS)(
  "history tiers (%s layout): archiver and merged reads against two real FerretDB servers",
  (layout) => {
    let archiveServer: Awaited<ReturnType<typeof startOwnFerretDb>>;
    let service: HistoryUnderTest;
    const window = (event: history.EventRef) => ({ eventId: event.eventId, fromMs: daysAgo(45), toMs: daysAgo(15) });

    beforeAll(async () => {
      archiveServer = await startOwnFerretDb(`history-archive-tiers-${layout}`);
      service = await startHistory({
        archiveUri: `${archiveServer.url}/history_archive`,
        // Patient: on a loaded machine the archive may take over a second, and a page past the deadline is
        // served degraded (live part + notice) by design, which made the paging test fail by timing. The
        // "does not answer" case stops the server, which fails by itself without needing a short deadline.
        archiveReadTimeoutMs: 15_000,
        // The same for the live tier: the racing test below runs a whole archiver pass inside a read's live-tier
        // query, which at a load average of 17 passed the 3 s default, failed that test and left its pass running
        // into the next one. Deadlines have their own tests ("answers UNAVAILABLE when the live tier does not answer").
        liveReadTimeoutMs: 15_000,
        layout,
      });
    });

    afterAll(async () => {
      await service.stop();
      await archiveServer.stop();
    });

    /** Another replica of the service over the same two stores. */
    const replicaOver = (options: { release?: string; now?: () => number }) =>
      startHistory({
        liveUri: `${process.env.TEST_MONGODB_URL}/${service.stores.liveDb.databaseName}`,
        archiveUri: `${archiveServer.url}/history_archive`,
        archiveReadTimeoutMs: 15_000,
        liveReadTimeoutMs: 15_000,
        layout,
        ...options,
      });

    it("moves ticks older than the live retention to the archive and reads still return each tick once", async () => {
      const event = await recordStraddlingEvent(service);
      const before = await service.list({ ...window(event), limit: 5000 });
      const total = await service.stores.live.countTicks(event.eventId);
      expect(before.items).toHaveLength(total);

      await service.archiver.runOnce();
      const archived = await service.stores.archive.countTicks(event.eventId);
      const live = await service.stores.live.countTicks(event.eventId);
      expect(archived).toBeGreaterThan(0);
      expect(live).toBeGreaterThan(0);
      expect(archived + live).toBe(total);

      const after = await service.list({ ...window(event), limit: 5000 });
      expect(after.notice).toBe("");
      expect(after.items).toEqual(before.items);
    });

    it("reads, appends to, rebuilds books from and archives buckets written before rows, whose ticks are objects", async () => {
      const event = await recordStraddlingEvent(service);
      const expected = (await service.list({ ...window(event), limit: 5000 })).items;
      const booksOf = async () => {
        const books = new BookStateStore(service.stores.live);
        await books.load([event.eventId]);
        return ["sportsbet", "tab"].map((book) => books.get(event.eventId, bookKeyOf(event.eventId, book, "feed-a")));
      };
      const books = await booksOf();
      expect(books.every((book) => book !== undefined)).toBe(true);

      // The event's buckets as the release before rows wrote them: each tick an object of its stored fields.
      const rewritten = await asObjectBuckets(service.stores.live, service.stores.liveDb, layout, event.eventId);
      expect(rewritten).toBeGreaterThan(10);
      expect((await service.list({ ...window(event), limit: 5000 })).items).toEqual(expected);
      expect(await booksOf()).toEqual(books);

      // A tick a second after the newest, in its hour: appended as a row after the objects. (The away price is the one
      // held at the newest instant: 4 - 1.8.)
      await service.record({
        events: [event],
        snapshots: [
          snapshot(event, daysAgo(20) + 1_000, [quote(ML_HOME, 3.3), quote(ML_AWAY, 2.2)], { bookmakerId: "tab" }),
        ],
      });
      const withLate = (await service.list({ ...window(event), limit: 5000 })).items;
      expect(withLate.slice(0, -1)).toEqual(expected);
      expect(withLate.at(-1)).toMatchObject({ bookmakerID: "tab", kind: "move", decimalOdds: 3.3 });
      const forms = await storedForms(service.stores.live, event.eventId);
      expect(forms.newest).toEqual({ objects: true, rows: true });

      // The archiver moves the old days' object buckets; the archive writes them as rows.
      await service.archiver.runOnce();
      expect(await service.stores.archive.countTicks(event.eventId)).toBeGreaterThan(0);
      expect(await storedForms(service.stores.archive, event.eventId)).toMatchObject({
        all: { objects: false, rows: true },
      });
      expect((await service.list({ ...window(event), limit: 5000 })).items).toEqual(withLate);
    });

    it("an archiver crash after the copy and before the delete loses nothing and doubles nothing", async () => {
      const event = await recordStraddlingEvent(service);
      const expected = (await service.list({ ...window(event), limit: 5000 })).items;
      const total = await service.stores.live.countTicks(event.eventId);
      const oldDay = new Date(daysAgo(39)).toISOString().slice(0, 10);

      // The crash: one batch copied to the archive, never deleted from live.
      const copied = await service.archiver.copyBatch({ day: oldDay, eventID: event.eventId });
      expect(copied.length).toBeGreaterThan(0);
      const inBoth = await service.stores.archive.countTicks(event.eventId, { day: oldDay });
      expect(inBoth).toBeGreaterThan(0);
      expect((await service.list({ ...window(event), limit: 5000 })).items).toEqual(expected);

      // The restarted job re-copies (no-op upserts) and deletes.
      await service.archiver.runOnce();
      await service.archiver.runOnce();
      const archived = await service.stores.archive.countTicks(event.eventId);
      const live = await service.stores.live.countTicks(event.eventId);
      expect(archived + live).toBe(total);
      expect(await service.stores.live.countTicks(event.eventId, { day: oldDay })).toBe(0);
      expect((await service.list({ ...window(event), limit: 5000 })).items).toEqual(expected);
    });

    it("a read racing the archiver's move of its buckets still returns every tick once", async () => {
      const event = await recordStraddlingEvent(service);
      const expected = (await service.list({ ...window(event), limit: 5000 })).items;
      // The move lands between the read's start and its live-tier query: the copy to the archive and the
      // delete from live both happen while the read is under way (a read that queried the archive before the
      // copy and live after the delete would miss the moved buckets in both tiers).
      const live = service.stores.live;
      const planWindow = live.planWindow.bind(live);
      live.planWindow = async (w) => {
        await service.archiver.runOnce();
        return planWindow(w);
      };
      try {
        const read = await service.list({ ...window(event), limit: 5000 });
        expect(await service.stores.archive.countTicks(event.eventId)).toBeGreaterThan(0);
        expect(read.notice).toBe("");
        expect(read.items).toEqual(expected);
      } finally {
        live.planWindow = planWindow;
        // A read that failed would leave its pass running, and the next test's runOnce would share that pass,
        // which listed its days before that test's event existed.
        await service.archiver.idle();
      }
    });

    it("a bucket that took a late tick after its copy is not deleted, and the next pass moves the late tick too", async () => {
      const event = await recordStraddlingEvent(service);
      const total = await service.stores.live.countTicks(event.eventId);
      const oldDay = new Date(daysAgo(39)).toISOString().slice(0, 10);
      const copied = await service.archiver.copyBatch({ day: oldDay, eventID: event.eventId });
      expect(copied.length).toBeGreaterThan(1);

      // A tick of a new bookmaker lands in the first copied bucket before the archiver deletes it.
      const hour = Date.parse(`${copied[0]!._id.slice(-13)}:00:00Z`);
      const late = ticksOf(event.eventId, "late-book", hour + 59 * 60_000, 2.5);
      await service.stores.live.upsertTicks(late);
      const deleted = await service.stores.live.deleteBuckets(event.eventId, copied);
      expect(deleted).toBe(copied.slice(1).reduce((sum, bucket) => sum + bucket.n, 0));

      await service.archiver.runOnce();
      const archived = await service.stores.archive.countTicks(event.eventId);
      const live = await service.stores.live.countTicks(event.eventId);
      expect(archived + live).toBe(total + late.length);
      expect(await service.stores.live.countTicks(event.eventId, { day: oldDay })).toBe(0);
      const series = (await service.list({ ...window(event), bookmakerIds: ["late-book"], limit: 5000 })).items;
      expect(series.map((tick) => [tick.bookmakerID, tick.changedAt])).toEqual([
        ["late-book", new Date(hour + 59 * 60_000).toISOString()],
      ]);
    });

    it("a window spanning both tiers, read in pages, concatenates to exactly the unpaged series", async () => {
      const event = await recordStraddlingEvent(service);
      await service.archiver.runOnce();
      expect(await service.stores.archive.countTicks(event.eventId)).toBeGreaterThan(0);

      const unpaged = await service.list({ ...window(event), limit: 5000 });
      expect([unpaged.nextCursor, unpaged.notice]).toEqual(["", ""]);
      for (const limit of [13, 50]) {
        const paged = await readAllPages(service, { ...window(event), limit });
        expect(paged.items).toEqual(unpaged.items);
      }
      // With an oddID filter too (pages skip the other market's ticks).
      const homeOnly = await service.list({ ...window(event), oddIds: [ML_HOME], limit: 5000 });
      expect((await readAllPages(service, { ...window(event), oddIds: [ML_HOME], limit: 9 })).items).toEqual(
        homeOnly.items,
      );
      // Some 150 page reads across two FerretDB servers: took 47 s with the machine's load average at 24.
    }, 180_000);

    it("tags a page by the code's release too: a replica of another release over the same stores never confirms it", async () => {
      const event = await recordStraddlingEvent(service);
      const whole = { ...window(event), limit: 5000 };
      const [before, twin, after] = [
        await replicaOver({ release: "release-1" }),
        await replicaOver({ release: "release-1" }),
        await replicaOver({ release: "release-2" }),
      ];
      try {
        const held = await before.list(whole);
        // Replicas of one release agree on a page's tag; another release answers the same page under another.
        expect((await twin.list({ ...whole, ifTag: held.tag })).unchanged).toBe(true);
        const renewed = await after.list({ ...whole, ifTag: held.tag });
        expect([renewed.unchanged, renewed.items]).toEqual([false, held.items]);
        expect(renewed.tag).not.toBe(held.tag);
        expect((await after.list({ ...whole, ifTag: renewed.tag })).unchanged).toBe(true);
      } finally {
        await Promise.all([before.stop(), twin.stop(), after.stop()]);
      }
    });

    it("tags a page by the buckets it was read from: a renewal of the same page is unchanged, a new tick or a move is not", async () => {
      const event = await recordStraddlingEvent(service);
      const whole = { ...window(event), limit: 5000 };
      const first = await service.list(whole);
      expect(first.tag).not.toBe("");
      const again = await service.list(whole);
      expect([again.tag, again.items]).toEqual([first.tag, first.items]);
      expect(await service.list({ ...whole, ifTag: first.tag })).toEqual({
        items: [],
        nextCursor: "",
        notice: "",
        tag: first.tag,
        unchanged: true,
      });

      // Another page size, or the next page, is another page.
      const firstTen = await service.list({ ...window(event), limit: 10, ifTag: first.tag });
      expect([firstTen.unchanged, firstTen.items]).toEqual([false, first.items.slice(0, 10)]);
      expect(firstTen.tag).not.toBe(first.tag);
      const nextTen = await service.list({
        ...window(event),
        limit: 10,
        cursor: firstTen.nextCursor,
        ifTag: firstTen.tag,
      });
      expect([nextTen.unchanged, nextTen.items]).toEqual([false, first.items.slice(10, 20)]);

      // Ticks of another event leave this page as it was.
      const other = newEvent(daysAgo(20));
      await service.record({ events: [other], snapshots: [snapshot(other, daysAgo(30), [quote(ML_HOME, 1.9)])] });
      expect((await service.list({ ...whole, ifTag: first.tag })).unchanged).toBe(true);

      // The archiver moves the window's old buckets: the same ticks, read from other buckets, under another tag.
      await service.archiver.runOnce();
      expect(await service.stores.archive.countTicks(event.eventId)).toBeGreaterThan(0);
      const moved = await service.list({ ...whole, ifTag: first.tag });
      expect([moved.unchanged, moved.notice, moved.items]).toEqual([false, "", first.items]);
      expect(moved.tag).not.toBe(first.tag);

      // A tick recorded late inside the window (a bucket rewritten): the renewal gets the page with it.
      await service.record({
        events: [event],
        snapshots: [snapshot(event, daysAgo(25, 30), [quote(ML_HOME, 3.1)], { bookmakerId: "late-book" })],
      });
      const late = await service.list({ ...whole, ifTag: moved.tag });
      expect(late.unchanged).toBe(false);
      expect(late.items).toHaveLength(first.items.length + 1);
      expect(late.items.filter((tick) => tick.bookmakerID === "late-book")).toHaveLength(1);
      expect((await service.list({ ...whole, ifTag: late.tag })).unchanged).toBe(true);
    });

    it("confirms a renewal by the tiers' revisions for a while after a listing: a write moves them at once", async () => {
      const event = await recordStraddlingEvent(service);
      const whole = { ...window(event), limit: 5000 };
      let clock = Date.now();
      const replica = await replicaOver({ now: () => clock });
      try {
        const first = await replica.list(whole);
        // A bucket written as by a writer that died before moving the revision (or by a release before revisions):
        // within the trust, a renewal is confirmed by the unmoved revisions alone, without listing the buckets.
        const ghost = ticksOf(event.eventId, "ghost-book", daysAgo(22) + 3 * 3_600_000, 2.75);
        await writeWithoutRevision(service.stores.liveDb, layout, ghost);
        expect((await replica.list({ ...whole, ifTag: first.tag })).unchanged).toBe(true);

        // Once the listing is older than the trust, a renewal lists the buckets again and finds the tick.
        clock += REVISION_TRUST_MS;
        const listed = await replica.list({ ...whole, ifTag: first.tag });
        expect(listed.unchanged).toBe(false);
        expect(listed.items).toHaveLength(first.items.length + 1);
        expect(listed.items.filter((tick) => tick.bookmakerID === "ghost-book")).toHaveLength(1);
        expect((await replica.list({ ...whole, ifTag: listed.tag })).unchanged).toBe(true);

        // A tick recorded by a writer (another replica's) moves the live revision: the next renewal lists it.
        await service.record({
          events: [event],
          snapshots: [snapshot(event, daysAgo(21, 30), [quote(ML_HOME, 3.4)], { bookmakerId: "late-book" })],
        });
        const recorded = await replica.list({ ...whole, ifTag: listed.tag });
        expect(recorded.unchanged).toBe(false);
        expect(recorded.items).toHaveLength(first.items.length + 2);

        // The archiver's move moves both tiers' revisions: the same ticks, from other buckets, under another tag.
        await service.archiver.runOnce();
        const moved = await replica.list({ ...whole, ifTag: recorded.tag });
        expect([moved.unchanged, moved.items]).toEqual([false, recorded.items]);
        expect(moved.tag).not.toBe(recorded.tag);
      } finally {
        await replica.stop();
      }
    });

    it("confirms by revisions a window whose end is still ahead, read up to now, unless a tick is dated past that instant", async () => {
      // Twenty minutes into an hour: the tick dated ten minutes ahead below falls in the bucket the window reads.
      let clock = hourOf(Date.now()) + 20 * 60_000;
      const event = newEvent(clock + 86_400_000);
      await service.record({
        events: [event],
        snapshots: [
          snapshot(event, clock - 2 * 3_600_000, [quote(ML_HOME, 1.9)]),
          snapshot(event, clock - 3_600_000, [quote(ML_HOME, 2.1)]),
        ],
      });
      // An upcoming event's page as its pollers ask for it: the window ends after kickoff, ahead of the reader's clock.
      const upcoming = {
        eventId: event.eventId,
        fromMs: clock - 3 * 3_600_000,
        toMs: clock + 2 * 86_400_000,
        limit: 5000,
      };
      const replica = await replicaOver({ now: () => clock });
      try {
        const first = await replica.list(upcoming);
        expect(first.items).toHaveLength(2);
        clock += 1_000;
        expect((await replica.list({ ...upcoming, ifTag: first.tag })).unchanged).toBe(true);

        // A tick dated ahead of the reader's clock (its writer's clock ahead): the page read up to now leaves it out,
        // names the instant it was read up to, and lists on every renewal until the clock has passed the tick.
        await service.record({
          events: [event],
          snapshots: [snapshot(event, clock + 10 * 60_000, [quote(ML_HOME, 2.4)])],
        });
        const ahead = await replica.list({ ...upcoming, ifTag: first.tag });
        expect([ahead.unchanged, ahead.items]).toEqual([false, first.items]);
        clock += 1_000;
        const later = await replica.list({ ...upcoming, ifTag: ahead.tag });
        expect([later.unchanged, later.items]).toEqual([false, first.items]);
        expect(later.tag).not.toBe(ahead.tag);

        clock += 10 * 60_000;
        const passed = await replica.list({ ...upcoming, ifTag: later.tag });
        expect([passed.unchanged, passed.items.length]).toEqual([false, 3]);
        expect(passed.items.at(-1)?.decimalOdds).toBe(2.4);
        clock += 1_000;
        expect((await replica.list({ ...upcoming, ifTag: passed.tag })).unchanged).toBe(true);
      } finally {
        await replica.stop();
      }
    });

    it("moves an event's revision after each write to its buckets in a tier, and only that event's", async () => {
      const [event, other] = [newEvent(daysAgo(2)), newEvent(daysAgo(2))];
      const live = service.stores.live;
      const revisions = async () => [await live.revisionOf(event.eventId), await live.revisionOf(other.eventId)];
      expect(await revisions()).toEqual([0, 0]);

      const ticks = ticksOf(event.eventId, "sportsbet", daysAgo(3), 1.9);
      await live.upsertTicks(ticks);
      expect(await revisions()).toEqual([1, 0]);
      // A write sent again after a failure writes nothing and still moves it: the failure may have come after the
      // write landed and before the revision moved.
      await live.upsertTicks(ticks);
      expect(await revisions()).toEqual([2, 0]);

      const buckets = await live.bucketsOfEvent(event.eventId);
      expect(await live.deleteBuckets(event.eventId, buckets)).toBe(ticks.length);
      expect(await revisions()).toEqual([3, 0]);
      expect(await service.stores.archive.revisionOf(event.eventId)).toBe(0);

      // Two first writes of an event at once (another replica's, the archiver's) both count.
      const fresh = newEvent(daysAgo(2));
      await Promise.all([
        live.upsertTicks(ticksOf(fresh.eventId, "sportsbet", daysAgo(3), 1.9)),
        live.upsertTicks(ticksOf(fresh.eventId, "tab", daysAgo(4), 2.1)),
      ]);
      expect(await live.revisionOf(fresh.eventId)).toBe(2);
    });

    it("when the archive tier does not answer, returns the live part with a notice that the old end is missing", async () => {
      const event = await recordStraddlingEvent(service);
      await service.archiver.runOnce();
      const complete = await service.list({ ...window(event), limit: 5000 });
      const liveCount = await service.stores.live.countTicks(event.eventId);

      await archiveServer.stop();
      try {
        // A renewal of the complete page cannot be confirmed without the archive: it gets the live part.
        const degraded = await service.list({ ...window(event), limit: 5000, ifTag: complete.tag });
        expect(degraded.notice).toBe(ARCHIVE_DOWN_NOTICE);
        expect([degraded.unchanged, degraded.tag]).toEqual([false, ""]);
        expect(degraded.items).toHaveLength(liveCount);
        expect(degraded.items).toEqual(complete.items.slice(complete.items.length - liveCount));
        // A window inside the live retention does not need the archive and carries no notice.
        const recent = await service.list({ eventId: event.eventId, fromMs: daysAgo(25), toMs: daysAgo(15) });
        expect(recent.notice).toBe("");
        expect(recent.items.length).toBeGreaterThan(0);
      } finally {
        archiveServer = { ...archiveServer, ...(await archiveServer.restart()) };
      }
      const recovered = await service.list({ ...window(event), limit: 5000 });
      expect(recovered.notice).toBe("");
      expect(recovered.items).toEqual(complete.items);
      expect(recovered.tag).toBe(complete.tag);
    });
  },
);

describe("history tiers: live tier down", () => {
  it("answers UNAVAILABLE when the live tier does not answer", async () => {
    const liveServer = await startOwnFerretDb("history-live-down");
    const archiveServer = await startOwnFerretDb("history-archive-live-down");
    const service = await startHistory({
      liveUri: `${liveServer.url}/history`,
      archiveUri: `${archiveServer.url}/history_archive`,
      liveReadTimeoutMs: 1_000,
    });
    try {
      const event = newEvent(daysAgo(2));
      await service.record({ events: [event], snapshots: [snapshot(event, daysAgo(3), [quote(ML_HOME, 1.9)])] });
      expect((await service.list({ eventId: event.eventId })).items).toHaveLength(1);

      await liveServer.stop();
      const err = await service.list({ eventId: event.eventId }).then(
        () => undefined,
        (e: unknown) => e as { code: number },
      );
      expect(err?.code).toBe(status.UNAVAILABLE);
    } finally {
      await service.stop();
      await archiveServer.stop();
    }
  });
});

describe("history tiers: the per-tier read cap", () => {
  it("stops at the cap with a cursor that continues, and the pages still add up to the whole series", async () => {
    const archiveServer = await startOwnFerretDb("history-archive-cap");
    const service = await startHistory({
      liveUri: testMongoUri("history_cap"),
      archiveUri: `${archiveServer.url}/history_archive`,
      readCapPerTier: 25,
    });
    try {
      const event = newEvent(daysAgo(2));
      const snapshots: history.BookSnapshot[] = [];
      // 60 ticks of the home market, then one of the away market.
      for (let minute = 0; minute < 60; minute += 1) {
        snapshots.push(snapshot(event, daysAgo(3, minute), [quote(ML_HOME, minute % 2 === 0 ? 1.9 : 1.8)]));
      }
      snapshots.push(snapshot(event, daysAgo(3, 60), [quote(ML_HOME, 1.8), quote(ML_AWAY, 2.2)]));
      await service.record({ events: [event], snapshots });

      const first = await service.list({ eventId: event.eventId, oddIds: [ML_AWAY] });
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBe("");
      const all = await readAllPages(service, { eventId: event.eventId, oddIds: [ML_AWAY] });
      expect(all.items.map((tick) => tick.kind)).toEqual(["open"]);
      expect(all.pages).toBe(3);

      const everything = await readAllPages(service, { eventId: event.eventId, limit: 5000 });
      expect(everything.items).toHaveLength(61);
      expect(everything.pages).toBe(3);
    } finally {
      await service.stop();
      await archiveServer.stop();
    }
  });

  it("reads at most 50,000 ticks per tier per request at the real constant", async () => {
    const archiveServer = await startOwnFerretDb("history-archive-cap-real");
    const service = await startHistory({
      liveUri: testMongoUri("history_cap_real"),
      archiveUri: `${archiveServer.url}/history_archive`,
      // Scanning 50,000 ticks on FerretDB takes seconds; this test is about the cap, not latency.
      liveReadTimeoutMs: 140_000,
    });
    try {
      const event = newEvent(daysAgo(2));
      await service.record({ events: [event], snapshots: [] });
      // 50,000 home-market moves stored directly (one minute apart), then the away market opens.
      const start = daysAgo(40);
      const ticks: TickDocument[] = [];
      let held = HeldQuotes.EMPTY;
      for (let i = 0; i <= READ_CAP_PER_TIER; i += 1) {
        const quotes = [quote(ML_HOME, i % 2 === 0 ? 1.9 : 1.8)];
        if (i === READ_CAP_PER_TIER) quotes.push(quote(ML_AWAY, 2.2));
        const diff = diffSnapshot(held, {
          eventID: event.eventId,
          bookmakerID: "sportsbet",
          sourceID: "feed-a",
          sourceRank: 10,
          observedAtMs: start + i * 60_000,
          quotes: quotes.map((q) => ({ oddID: q.oddId, decimalOdds: q.decimalOdds, available: true })),
        });
        ticks.push(...diff.ticks);
        held = diff.held;
      }
      expect(ticks).toHaveLength(READ_CAP_PER_TIER + 2);
      for (let i = 0; i < ticks.length; i += 10_000) await service.stores.live.upsertTicks(ticks.slice(i, i + 10_000));

      const request = { eventId: event.eventId, oddIds: [ML_AWAY], fromMs: start, toMs: daysAgo(1), limit: 5000 };
      // Each call scans a full tier: on a loaded machine that outlasts the harness's default deadline.
      const first = await service.list(request, 150_000);
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBe("");
      const second = await service.list({ ...request, cursor: first.nextCursor }, 150_000);
      expect(second.items.map((tick) => [tick.oddID, tick.kind])).toEqual([[ML_AWAY, "open"]]);
      expect(second.nextCursor).toBe("");
    } finally {
      await service.stop();
      await archiveServer.stop();
    }
  }, 480_000);
});

/**
 * Rewrites every bucket of the event as the release before rows wrote it: each tick an object of its stored fields,
 * packed so that the next append keeps them. Returns how many buckets it rewrote.
 */
async function asObjectBuckets(tier: TickTier, db: Db, layout: TickLayout, eventID: string): Promise<number> {
  // No tier method writes the old form, so each bucket the tier reads is written back by its id, where the tier keeps it.
  const collection = db.collection<BucketDocument>(bucketCollectionOf(layout, eventID));
  let rewritten = 0;
  for (const bucket of await tier.bucketsOfEvent(eventID)) {
    const { packed, closeAt, bytes } = packJsonArray(JSON.stringify(storedTicksOf(bucket)));
    const { modifiedCount } = await collection.updateOne(
      { _id: bucket._id },
      { $set: { ticks: new Binary(packed), closeAt, jsonBytes: bytes, v: bucket.v + 1 } },
    );
    rewritten += modifiedCount;
  }
  return rewritten;
}

/** Whether the event's buckets hold ticks as objects, as rows: over all of them, and in its newest hour's. */
async function storedForms(
  tier: TickTier,
  eventID: string,
): Promise<Record<"all" | "newest", { objects: boolean; rows: boolean }>> {
  const formsOf = (buckets: BucketDocument[]) => {
    const held = buckets.flatMap(
      (bucket) =>
        JSON.parse(unpackJson(bucket.ticks.buffer, { bytes: bucket.jsonBytes }).toString("utf8")) as unknown[],
    );
    return { objects: held.some((tick) => !Array.isArray(tick)), rows: held.some((tick) => Array.isArray(tick)) };
  };
  // Oldest hour first.
  const buckets = await tier.bucketsOfEvent(eventID);
  return { all: formsOf(buckets), newest: formsOf(buckets.slice(-1)) };
}

/** An opening tick of one bookmaker's home price at `at`. */
function ticksOf(eventID: string, bookmakerID: string, at: number, decimalOdds: number): TickDocument[] {
  return diffSnapshot(HeldQuotes.EMPTY, {
    eventID,
    bookmakerID,
    sourceID: "feed-a",
    sourceRank: 10,
    observedAtMs: at,
    quotes: [{ oddID: ML_HOME, decimalOdds, available: true }],
  }).ticks;
}

/** Inserts the ticks' bucket (an hour no bucket holds yet) where the tier keeps it, without moving its revision. */
async function writeWithoutRevision(db: Db, layout: TickLayout, ticks: TickDocument[]): Promise<void> {
  const { eventID, changedAt } = ticks[0]!;
  const hour = hourOf(changedAt.getTime());
  await db
    .collection<BucketDocument>(bucketCollectionOf(layout, eventID))
    .insertOne(encodeBucket(bucketId(eventID, hour, layout === "shared"), eventID, hour, ticks, 1));
}
