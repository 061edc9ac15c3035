// How a tier reads a window's buckets, against a real FerretDB: a window of a few hours (a poller's "what changed
// since my last read") by `_id`, hour by hour, and a longer one in one listing; both give exactly the window's ticks.
import { testMongoUri } from "@odds/local";
import type * as zlib from "node:zlib";
import { MongoClient, type Document } from "mongodb";
import { HeldQuotes } from "../src/held-quotes";
import { compareTicks, HOUR_MS, hourOf } from "../src/tick-buckets";
import { TICK_LAYOUTS, TickTier, WINDOW_HOURS_BY_ID, type TickWindow } from "../src/tick-tier";
import { diffSnapshot, seriesKeyOf, type TickDocument } from "../src/ticks";

const EVENT_ID = "afl_window_reads";
/** Ticks every 20 minutes over the last 30 hours, the last one two minutes ago. */
const NOW = Date.now();
const LAST_AT = NOW - 2 * 60_000;
const FIRST_AT = LAST_AT - 90 * 20 * 60_000;

/** Two bookmakers whose price moves at every instant, so every snapshot records a tick. */
function ticksOfEvent(): TickDocument[] {
  const ticks: TickDocument[] = [];
  for (const bookmakerID of ["sportsbet", "tab"]) {
    let held = HeldQuotes.EMPTY;
    for (let at = FIRST_AT, n = 0; at <= LAST_AT; at += 20 * 60_000, n += 1) {
      const snapshot = {
        eventID: EVENT_ID,
        bookmakerID,
        sourceID: "sim",
        sourceRank: 1,
        observedAtMs: at,
        quotes: [{ oddID: "points-home-game-ml-home", decimalOdds: n % 2 === 0 ? 1.5 : 1.6, available: true }],
      };
      const diff = diffSnapshot(held, snapshot);
      ticks.push(...diff.ticks);
      held = diff.held;
    }
  }
  return ticks;
}

describe.each(TICK_LAYOUTS)("a tier's window reads (%s layout) on a real FerretDB", (layout) => {
  let client: MongoClient;
  let tier: TickTier;
  let written: TickDocument[];
  /** The filter of every `find` of buckets the tier sent since the last reset. */
  let finds: Document[] = [];
  /** The filter of every `find` of the event's revision since the last reset. */
  let revisionReads: Document[] = [];

  beforeAll(async () => {
    client = await MongoClient.connect(testMongoUri(`history_window_reads_${layout.replace("-", "_")}`), {
      monitorCommands: true,
    });
    client.on("commandStarted", (event) => {
      if (event.commandName !== "find") return;
      const { find, filter } = event.command as { find: string; filter: Document };
      (find === "tickRevisions" ? revisionReads : finds).push(filter);
    });
    tier = new TickTier("live", client.db(), layout);
    written = ticksOfEvent();
    await tier.upsertTicks(written);
  });

  afterAll(() => client.close());

  /** Every tick of the window's series, in history order, as a page read takes them. */
  async function read(window: TickWindow): Promise<string[]> {
    finds = [];
    revisionReads = [];
    const plan = await tier.planWindow(window);
    // One look-up of the event's revision by `_id`, beside the buckets' reads.
    expect(revisionReads).toEqual([{ _id: window.eventID }]);
    const seriesKeys = plan.sources().map((source) => seriesKeyOf(source.bookmakerID, source.sourceID));
    const cursor = plan.open({ ...window, seriesKeys }, 1_000_000);
    const ids: string[] = [];
    for (let tick = await cursor.next(); tick; tick = await cursor.next()) ids.push(tick._id);
    return ids;
  }

  function expected(window: TickWindow): string[] {
    return written
      .filter((tick) => tick.changedAt.getTime() >= window.fromMs && tick.changedAt.getTime() < window.toMs)
      .sort(compareTicks)
      .map((tick) => tick._id);
  }

  it("reads a window of a few hours by _id, one look-up per hour, and gives exactly its ticks", async () => {
    // A poller's window (from a few minutes ago to now), then windows of whole and partial hours up to the bound.
    const windows: TickWindow[] = [
      { eventID: EVENT_ID, fromMs: NOW - 5 * 60_000, toMs: NOW },
      ...Array.from({ length: WINDOW_HOURS_BY_ID }, (_, i) => ({
        eventID: EVENT_ID,
        fromMs: hourOf(NOW) - (i + 1) * HOUR_MS + 7 * 60_000,
        toMs: hourOf(NOW) - 25 * 60_000,
      })),
    ];
    for (const window of windows) {
      const ids = await read(window);
      expect(ids).toEqual(expected(window));
      const hours = Math.ceil((window.toMs - hourOf(window.fromMs)) / HOUR_MS);
      expect(finds).toHaveLength(hours);
      for (const filter of finds) expect(Object.keys(filter)).toEqual(["_id"]);
    }
    expect(expected(windows[0]!).length).toBeGreaterThan(0);
  });

  it("lists a longer window's hours in one query and gives exactly its ticks", async () => {
    const window = { eventID: EVENT_ID, fromMs: FIRST_AT + 10 * 60_000, toMs: NOW };
    const ids = await read(window);
    expect(ids).toEqual(expected(window));
    expect(ids.length).toBeGreaterThan(100);
    expect(finds).toHaveLength(1);
    expect(finds[0]).toHaveProperty("hour");
  });

  it("inflates each bucket of a page once, those the window's ends cut through included", async () => {
    // Both ends cut an hour: the first bucket from 10 minutes in, the last (the current hour's, but in an hour's
    // first two minutes) at now. Every hour from the first to the last tick's has ticks, so a bucket.
    const window = { eventID: EVENT_ID, fromMs: hourOf(FIRST_AT) + HOUR_MS + 10 * 60_000, toMs: NOW };
    const buckets = (hourOf(LAST_AT) - hourOf(window.fromMs)) / HOUR_MS + 1;
    // A bucket's ticks are one raw-deflate stream, inflated in one call.
    const inflate = jest.spyOn(jest.requireActual<typeof zlib>("node:zlib"), "inflateRawSync");
    try {
      const ids = await read(window);
      expect(ids).toEqual(expected(window));
      expect(inflate).toHaveBeenCalledTimes(buckets);
    } finally {
      inflate.mockRestore();
    }
  });

  it("finds nothing, and fails nothing, for hours without buckets", async () => {
    expect(await read({ eventID: EVENT_ID, fromMs: FIRST_AT - 3 * HOUR_MS, toMs: FIRST_AT })).toEqual([]);
    expect(await read({ eventID: "afl_never_recorded", fromMs: NOW - HOUR_MS, toMs: NOW })).toEqual([]);
  });
});
