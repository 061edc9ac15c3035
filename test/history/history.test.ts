import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT, waitUntil } from "@odds/local";
import { MongoClient, type Db } from "mongodb";
import { e2eStack, getV2 } from "../support/e2e";

const DAY_MS = 86_400_000;

interface Tick {
  eventID: string;
  oddID: string;
  bookmakerID: string;
  changedAt: string;
  kind: string;
}

/** Runs the archiver the way the Kubernetes CronJob does: `node dist/archiver.js`, one pass, exit 0. */
function runArchiverJob(): Promise<number | null> {
  const { uris } = e2eStack();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "services", "history", "dist", "archiver.js")], {
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        HISTORY_LIVE_MONGODB_URI: uris.historyLive!,
        HISTORY_ARCHIVE_MONGODB_URI: uris.historyArchive!,
      },
      stdio: "inherit",
    });
    child.once("error", reject);
    child.once("exit", resolve);
  });
}

const HOUR_MS = 3_600_000;
const BUCKETS_PREFIX = "buckets_";

/** History keeps one collection of hour buckets per event: buckets_<eventID>. */
async function eventsWithTicks(db: Db): Promise<string[]> {
  const collections = await db.listCollections({}, { nameOnly: true }).toArray();
  return collections
    .map((c) => c.name)
    .filter((name) => name.startsWith(BUCKETS_PREFIX))
    .map((name) => name.slice(BUCKETS_PREFIX.length));
}

/** An event whose backfilled ticks sit in both tiers after archiving; throws while there is none. */
async function eventInBothTiers(live: Db, archive: Db): Promise<string> {
  const liveEvents = new Set(await eventsWithTicks(live));
  for (const eventID of await eventsWithTicks(archive)) {
    if (!liveEvents.has(eventID)) continue;
    const [inLive, inArchive] = await Promise.all([
      live.collection(`${BUCKETS_PREFIX}${eventID}`).countDocuments({}),
      archive.collection(`${BUCKETS_PREFIX}${eventID}`).countDocuments({}),
    ]);
    if (inLive > 0 && inArchive > 0) return eventID;
  }
  throw new Error("no event has ticks in both tiers yet");
}

describe("GET /v2/odds/history/ on the running stack", () => {
  let liveClient: MongoClient;
  let archiveClient: MongoClient;
  let eventID: string;
  const window = () => {
    const now = Date.now();
    return `from=${new Date(now - 45 * DAY_MS).toISOString()}&to=${new Date(now).toISOString()}`;
  };

  beforeAll(async () => {
    const { uris } = e2eStack();
    liveClient = new MongoClient(uris.historyLive!);
    archiveClient = new MongoClient(uris.historyArchive!);
    const live = liveClient.db();
    const archive = archiveClient.db();
    // The backfill replays 35 days: wait until ticks older than the live retention have been recorded.
    const oldDay = new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10);
    await waitUntil(
      "backfilled ticks older than 28 days",
      async () => {
        const recorded =
          (await live.collection("tickDays").findOne({ day: { $lt: oldDay } })) ||
          (await eventsWithTicks(archive)).length > 0;
        if (!recorded) throw new Error(`no tick day before ${oldDay} yet`);
      },
      { timeoutMs: 150_000, intervalMs: 2_000 },
    );
    expect(await runArchiverJob()).toBe(0);
    eventID = await waitUntil("an event with ticks in both tiers", () => eventInBothTiers(live, archive), {
      timeoutMs: 60_000,
      intervalMs: 2_000,
    });
  }, 240_000);

  afterAll(async () => {
    await Promise.all([liveClient?.close(), archiveClient?.close()]);
  });

  it("answers a backfilled event's history with ticks from both tiers, oldest first", async () => {
    // The oldest hour bucket is in the archive tier, the newest in the live tier.
    const archive = archiveClient.db().collection(`${BUCKETS_PREFIX}${eventID}`);
    const live = liveClient.db().collection(`${BUCKETS_PREFIX}${eventID}`);
    const oldest = await archive
      .find({}, { projection: { hour: 1 } })
      .sort({ hour: 1 })
      .limit(1)
      .next();
    const newest = await live
      .find({}, { projection: { hour: 1 } })
      .sort({ hour: -1 })
      .limit(1)
      .next();
    const inHour = (hour: number) => (at: string) => Date.parse(at) >= hour && Date.parse(at) < hour + HOUR_MS;

    const res = await getV2(`/odds/history/?eventID=${encodeURIComponent(eventID)}&${window()}&limit=5000`, {
      tier: "internal",
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.notice).toBeUndefined();
    const ticks = res.body.data as Tick[];
    const times = ticks.map((tick) => tick.changedAt);
    expect([...times].sort()).toEqual(times);
    expect(times.some(inHour(Number(oldest!.hour)))).toBe(true);
    expect(times.some(inHour(Number(newest!.hour)))).toBe(true);
    expect(ticks.every((tick) => ["open", "move", "limit", "close"].includes(tick.kind))).toBe(true);
    expect(ticks[0]).toEqual(
      expect.objectContaining({
        eventID,
        bookOdds: expect.stringMatching(/^[+-]\d+$/),
        decimalOdds: expect.any(Number),
        previousBookOdds: null,
        kind: "open",
      }),
    );
  });

  it("pages across both tiers into exactly the unpaged series", async () => {
    const base = `/odds/history/?eventID=${encodeURIComponent(eventID)}&${window()}`;
    const unpaged = await getV2(`${base}&limit=5000`, { tier: "internal" });
    const all = unpaged.body.data as Tick[];
    const paged: Tick[] = [];
    let cursor: string | null = null;
    let pages = 0;
    const limit = Math.max(1, Math.ceil(all.length / 4));
    do {
      const page = await getV2(`${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
        tier: "internal",
      });
      expect(page.status).toBe(200);
      paged.push(...(page.body.data as Tick[]));
      cursor = page.body.nextCursor as string | null;
      pages += 1;
    } while (cursor && pages < 50);
    expect(pages).toBeGreaterThan(1);
    expect(paged).toEqual(all);
  });

  it("answers 400 Invalid params naming eventID when it is missing", async () => {
    const res = await getV2("/odds/history/", { tier: "internal" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "Invalid params" });
    expect(res.body.message).toMatch(/eventID/);
  });

  it("answers 404 Not found for an unknown event", async () => {
    const res = await getV2("/odds/history/?eventID=AFL_2026-10-01_nobody_vs_noone", { tier: "internal" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: "Not found" });
  });

  it("answers 400 Invalid params for a from/to span over 400 days", async () => {
    const res = await getV2(
      `/odds/history/?eventID=${encodeURIComponent(eventID)}&from=2026-01-01T00:00:00Z&to=2027-03-01T00:00:00Z`,
      { tier: "internal" },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "Invalid params" });
    expect(res.body.message).toMatch(/from and to span more than 400 days/);
  });
});
