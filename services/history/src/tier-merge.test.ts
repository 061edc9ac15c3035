import { HeldQuotes } from "./held-quotes";
import { compareTicks } from "./tick-buckets";
import type { TickCursor } from "./tick-tier";
import { ARCHIVE_DOWN_NOTICE, ARCHIVE_STOPPED_NOTICE, mergeTiers, TierStream } from "./tier-merge";
import { diffSnapshot, type TickDocument } from "./ticks";

const T0 = Date.UTC(2026, 9, 1, 13);

/** Two opening ticks (home and away) of one book at `observedAtMs`. */
function ticksAt(observedAtMs: number, bookmakerID = "sportsbet"): TickDocument[] {
  const { ticks } = diffSnapshot(HeldQuotes.EMPTY, {
    eventID: "AFL_2026-10-02_a_vs_b",
    bookmakerID,
    sourceID: "feed-a",
    sourceRank: 10,
    observedAtMs,
    quotes: [
      { oddID: "points-home-game-ml-home", decimalOdds: 1.8, available: true },
      { oddID: "points-away-game-ml-away", decimalOdds: 2.05, available: true },
    ],
  });
  return ticks.sort(compareTicks);
}

/** A tier's ticks in history order, at most `cap` of them; `failAt` throws when that tick is asked for. */
function stream(ticks: TickDocument[], cap = 50_000, failAt?: number): TierStream {
  let at = 0;
  const cursor: TickCursor = {
    next: () => {
      if (at === failAt) throw new Error("inflate: invalid stored block lengths");
      return at < Math.min(cap, ticks.length) ? ticks[at++]! : null;
    },
  };
  return new TierStream(cursor, cap);
}

const ids = (ticks: TickDocument[]) => ticks.map((tick) => tick._id);
const all = () => true;

describe("mergeTiers", () => {
  const archived = [...ticksAt(T0), ...ticksAt(T0 + 60_000)];
  const live = [...ticksAt(T0 + 60_000), ...ticksAt(T0 + 120_000)];

  it("merges both tiers in history order, a tick held by both (mid-archive) once", () => {
    const page = mergeTiers(stream(live), stream(archived), 100, all);
    expect(ids(page.items)).toEqual(ids([...archived, ...ticksAt(T0 + 120_000)]));
    expect([page.notice, page.stoppedAt]).toEqual(["", undefined]);
  });

  it("keeps only what the filter keeps, and stops a full page at the last position consumed", () => {
    const home = (oddID: string) => oddID.includes("home");
    const page = mergeTiers(stream(live), stream(archived), 2, home);
    const homes = [...archived, ...live].filter((tick) => home(tick.oddID)).sort(compareTicks);
    expect(ids(page.items)).toEqual(ids(homes.slice(0, 2)));
    // The page's third home tick was found, not taken: the away tick consumed before it is where the next page starts.
    const consumed = archived[3]!;
    expect(consumed.oddID).toContain("away");
    expect(page.stoppedAt).toEqual({ at: consumed.changedAt.getTime(), id: consumed._id });
  });

  it("stops where a capped tier's reads end: it may hold more", () => {
    const page = mergeTiers(stream(live, 3), undefined, 100, all);
    expect(ids(page.items)).toEqual(ids(live.slice(0, 3)));
    expect(page.stoppedAt).toEqual({ at: live[2]!.changedAt.getTime(), id: live[2]!._id });
  });

  it("leaves out an archive that fails before anything was consumed, with the notice that the old end is missing", () => {
    const page = mergeTiers(stream(live), stream(archived, 50_000, 0), 100, all);
    expect(ids(page.items)).toEqual(ids(live));
    expect([page.notice, page.stoppedAt]).toEqual([ARCHIVE_DOWN_NOTICE, undefined]);
  });

  it("ends the page where an archive that fails later stopped, with a cursor to continue from", () => {
    const page = mergeTiers(stream(live), stream(archived, 50_000, 2), 100, all);
    expect(ids(page.items)).toEqual(ids(archived.slice(0, 2)));
    expect(page.notice).toBe(ARCHIVE_STOPPED_NOTICE);
    expect(page.stoppedAt).toEqual({ at: archived[1]!.changedAt.getTime(), id: archived[1]!._id });
  });

  it("fails when the live tier's ticks cannot be read", () => {
    expect(() => mergeTiers(stream(live, 50_000, 1), stream(archived), 100, all)).toThrow("inflate");
  });
});
