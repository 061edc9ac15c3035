import { status } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import { events, v1 } from "@odds/proto";
import { eventProto, HOUR } from "./fixtures";
import { type EventsHarness, INTERNAL, rejection, startEventsService } from "./harness";

/** ListEventsV1 (the v1 events, odds and results) through the real gRPC server over a real FerretDB database. */

const now = Date.now();

async function listV1(service: EventsHarness, request: Partial<events.ListEventsV1Request>) {
  const page = await callUnary(
    service.client,
    service.client.listEventsV1,
    events.ListEventsV1Request.create({ caller: INTERNAL, view: "event", ...request }),
  );
  return {
    items: page.items.map((item) => JSON.parse(Buffer.from(item).toString("utf8")) as any),
    nextCursor: page.nextCursor,
    objects: page.objects ?? 0,
  };
}

const upcoming = eventProto({ eventId: "AFL_UP", startsAtMs: now + HOUR, lastUpdatedAtMs: now });
const live = eventProto({
  eventId: "AFL_LIVE",
  startsAtMs: now - HOUR,
  lastUpdatedAtMs: now,
  status: { started: true, live: true, periodsStarted: ["1q", "2q"], periodsEnded: ["1q"] },
});

let service: EventsHarness;

beforeAll(async () => {
  service = await startEventsService();
  await service.apply("v1-cycle-1", [upcoming, live]);
});

afterAll(() => service.stop());

describe("ListEventsV1", () => {
  it("resolves v1 event ids and the bookmakers' own ids; an unknown or v2 id selects nothing", async () => {
    const id = v1.v1Id("event", "AFL_UP");
    expect((await listV1(service, { eventIds: [id] })).items.map((e) => e.event_id)).toEqual([id]);
    expect((await listV1(service, { externalIds: ["sportsbet:1"] })).items.map((e) => e.event_id)).toContain(id);
    expect((await listV1(service, { eventIds: [v1.v1Id("event", "NOPE")] })).items).toEqual([]);
    expect((await listV1(service, { eventIds: ["AFL_UP"] })).items).toEqual([]);
  });

  it("filters by v1 status and counts usage in objects: 1 per record plus 1 per open price", async () => {
    const liveOnly = await listV1(service, { status: "live" });
    expect(liveOnly.items.map((e) => e.event_id)).toEqual([v1.v1Id("event", "AFL_LIVE")]);
    const odds = await listV1(service, { view: "odds", eventIds: [v1.v1Id("event", "AFL_UP")] });
    const prices = odds.items[0].markets.flatMap((m: any) => m.outcomes.flatMap((o: any) => o.prices));
    expect(odds.objects).toBe(1 + prices.filter((p: any) => p.decimal_odds !== null).length);
    const badView = await rejection(
      callUnary(service.client, service.client.listEventsV1, events.ListEventsV1Request.create({ view: "nope" })),
    );
    expect([badView.code, badView.details]).toEqual([status.INVALID_ARGUMENT, expect.stringMatching(/^view/)]);
  });

  it("pages with a cursor bound to the view and filters", async () => {
    const first = await listV1(service, { limit: 1 });
    expect(first.nextCursor).not.toBe("");
    const second = await listV1(service, { limit: 1, cursor: first.nextCursor });
    expect(second.items[0].event_id).not.toBe(first.items[0].event_id);
    const replayed = await rejection(
      callUnary(
        service.client,
        service.client.listEventsV1,
        events.ListEventsV1Request.create({ caller: INTERNAL, view: "odds", limit: 1, cursor: first.nextCursor }),
      ),
    );
    expect([replayed.code, replayed.details]).toEqual([status.INVALID_ARGUMENT, expect.stringMatching(/cursor/)]);
  });

  it("grades an ended event on the markets it was priced on, even after its markets closed, across a restart", async () => {
    const results = await startEventsService();
    try {
      const priced = eventProto({ eventId: "AFL_END", startsAtMs: now - 3 * HOUR, lastUpdatedAtMs: now });
      await results.apply("r1", [priced]);
      const ended = eventProto({
        eventId: "AFL_END",
        startsAtMs: now - 3 * HOUR,
        lastUpdatedAtMs: now,
        noOdds: true,
        status: { started: true, ended: true, finalized: true, periodsEnded: ["1q", "game"] },
      });
      ended.results = { game: { entities: { home: { stats: { points: 70 } }, away: { stats: { points: 95 } } } } };
      await results.apply("r2", [ended]);
      const restarted = await startEventsService(results.uri);
      try {
        const page = await listV1(restarted, { view: "results", eventIds: [v1.v1Id("event", "AFL_END")] });
        const [result] = page.items;
        expect(v1.v1Result.parse(result)).toEqual(result);
        expect(result.pending_markets).toBe(0);
        const verdict = (oddID: string) =>
          result.markets.flatMap((m: any) => m.outcomes).find((o: any) => o.outcome_id === v1.v1Id("outcome", oddID))
            ?.verdict;
        expect([verdict("points-home-game-ml-home"), verdict("points-away-game-ml-away")]).toEqual(["lost", "won"]);
        expect(page.objects).toBe(1);
      } finally {
        await restarted.stop();
      }
    } finally {
      await results.stop();
    }
  });

  it("lists results only for events that have started", async () => {
    const page = await listV1(service, { view: "results" });
    expect(page.items.map((r) => r.event_id)).toEqual([v1.v1Id("event", "AFL_LIVE")]);
    expect(page.items[0].pending_markets).toBeGreaterThan(0);
  });
});
