import { freePort, waitUntil } from "@odds/local";
import { createGrpcClient, createLogger, startGrpcServer, type RunningGrpcServer } from "@odds/platform";
import { events } from "@odds/proto";
import { FeedVersion } from "../src/cache/feed-version";
import { EventsGateway } from "../src/gateways/events";
import { eventsBinding, FakeFeed } from "./fixtures";

const logger = createLogger("feed-version-test", "silent");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds, failing after 20 s with `describe()`. */
function eventually(condition: () => boolean, describe: () => string): Promise<void> {
  return waitUntil(
    "the feed version's watch",
    async () => {
      if (!condition()) throw new Error(describe());
    },
    { timeoutMs: 20_000, intervalMs: 10 },
  );
}

const reaches = (feedVersion: FeedVersion, cycleAtMs: number) =>
  eventually(
    () => feedVersion.lastCycleAtMs === cycleAtMs,
    () => `feed version at ${feedVersion.lastCycleAtMs}, expected ${cycleAtMs}`,
  );

function startFakeEvents(feed: FakeFeed, port: number): Promise<RunningGrpcServer> {
  return startGrpcServer({ host: "127.0.0.1", port, logger, services: [eventsBinding(feed, logger)] });
}

function followEvents(port: number): { feedVersion: FeedVersion; client: events.EventsServiceClient } {
  const client = createGrpcClient(events.EventsServiceClient, `127.0.0.1:${port}`, { defaultDeadlineMs: 2_000 });
  const gateway = new EventsGateway(client);
  return { feedVersion: new FeedVersion(() => gateway.watchFeedStatus(), logger), client };
}

describe("the edge's feed version, pushed by the events service", () => {
  let feed: FakeFeed;
  let server: RunningGrpcServer;
  let feedVersion: FeedVersion;
  let client: events.EventsServiceClient;

  beforeEach(async () => {
    feed = new FakeFeed();
    server = await startFakeEvents(feed, 0);
    ({ feedVersion, client } = followEvents(server.port));
  });

  afterEach(async () => {
    await feedVersion.stop();
    client.close();
    await server.shutdown(500);
  });

  it("takes on each cycle the events service pushes, in order, and tells its listeners", async () => {
    feed.lastCycleAtMs = 1_000;
    const told: number[] = [];
    feedVersion.onChange((cycleAtMs) => told.push(cycleAtMs));
    feedVersion.start();
    await reaches(feedVersion, 1_000);
    feed.lastCycleAtMs = 2_000;
    await reaches(feedVersion, 2_000);
    feed.lastCycleAtMs = 2_000;
    feed.lastCycleAtMs = 3_000;
    await reaches(feedVersion, 3_000);
    // The same cycle pushed again is no change.
    expect(told).toEqual([1_000, 2_000, 3_000]);
    expect(feedVersion.current()).toBe("3000");
    expect(feed.openWatches).toBe(1);
  });

  it("opens the watch again when the events service ends it, and follows the cycles after", async () => {
    feedVersion.start();
    await eventually(
      () => feed.openWatches === 1,
      () => `${feed.openWatches} watches open`,
    );
    const opened = feed.watchesOpened;
    feed.endWatches();
    await eventually(
      () => feed.watchesOpened > opened && feed.openWatches === 1,
      () => `${feed.watchesOpened - opened} watches opened since, ${feed.openWatches} open`,
    );
    feed.lastCycleAtMs = 4_000;
    await reaches(feedVersion, 4_000);
  });

  it("stops watching when stopped", async () => {
    feedVersion.start();
    await eventually(
      () => feed.openWatches === 1,
      () => `${feed.openWatches} watches open`,
    );
    await feedVersion.stop();
    await eventually(
      () => feed.openWatches === 0,
      () => `${feed.openWatches} watches still open`,
    );
    feed.lastCycleAtMs = 5_000;
    await sleep(200);
    expect(feedVersion.lastCycleAtMs).toBe(0);
  });
});

it("keeps trying while the events service is unreachable, and follows it once it is up", async () => {
  const port = await freePort();
  const { feedVersion, client } = followEvents(port);
  feedVersion.start();
  // Several attempts fail first (nothing listens there).
  await sleep(500);
  expect(feedVersion.lastCycleAtMs).toBe(0);
  const feed = new FakeFeed();
  feed.lastCycleAtMs = 6_000;
  const server = await startFakeEvents(feed, port);
  try {
    await reaches(feedVersion, 6_000);
  } finally {
    await feedVersion.stop();
    client.close();
    await server.shutdown(500);
  }
});
