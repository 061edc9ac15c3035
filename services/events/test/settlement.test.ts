import { callUnary } from "@odds/platform";
import { events, v1 } from "@odds/proto";
import { eventProto, HOUR } from "./fixtures";
import { type EventsHarness, INTERNAL, startEventsService } from "./harness";

/**
 * Results settle once, in the events store: verdicts survive later reads, restarts and replays,
 * and change only when the source marks the results corrected. Real gRPC server, real FerretDB.
 */

const now = Date.now();

async function resultOf(service: EventsHarness, eventID: string): Promise<any> {
  const page = await callUnary(
    service.client,
    service.client.listEventsV1,
    events.ListEventsV1Request.create({ caller: INTERNAL, view: "results", eventIds: [v1.v1Id("event", eventID)] }),
  );
  const [result] = page.items.map((item) => JSON.parse(Buffer.from(item).toString("utf8")));
  expect(v1.v1Result.parse(result)).toEqual(result);
  return result;
}

function verdictOf(result: any, oddID: string): string | null | undefined {
  return result.markets.flatMap((m: any) => m.outcomes).find((o: any) => o.outcome_id === v1.v1Id("outcome", oddID))
    ?.verdict;
}

/** The event after its end: markets closed, a final score, and (optionally) the source's correction mark. */
function finished(eventId: string, home: number, away: number, correctedAtMs = 0): events.Event {
  const event = eventProto({
    eventId,
    startsAtMs: now - 4 * HOUR,
    lastUpdatedAtMs: now,
    noOdds: true,
    status: { started: true, ended: true, finalized: true, periodsEnded: ["1q", "game"] },
  });
  event.results = { game: { entities: { home: { stats: { points: home } }, away: { stats: { points: away } } } } };
  event.home = { ...(event.home as events.EventTeam), score: home };
  event.away = { ...(event.away as events.EventTeam), score: away };
  event.resultsCorrectedAtMs = correctedAtMs;
  return event;
}

describe("settling results once", () => {
  let service: EventsHarness;
  beforeAll(async () => {
    service = await startEventsService();
  });
  afterAll(() => service.stop());

  it("keeps verdicts when results change unmarked; a marked correction re-settles and names what changed; a restart keeps both", async () => {
    await service.apply("s1", [eventProto({ eventId: "AFL_CORR", startsAtMs: now - 4 * HOUR, lastUpdatedAtMs: now })]);
    await service.apply("s2", [finished("AFL_CORR", 70, 95)]);
    const settled = await resultOf(service, "AFL_CORR");
    expect([verdictOf(settled, "points-home-game-ml-home"), verdictOf(settled, "points-away-game-ml-away")]).toEqual([
      "lost",
      "won",
    ]);
    expect(verdictOf(settled, "points-all-game-ou-under")).toBe("won");
    expect(settled.corrected_at).toBeNull();
    expect(settled.corrections).toEqual([]);
    const mlMarket = settled.markets.find((m: any) => m.market_id === v1.v1Id("market", "points-all-game-ml"));
    expect(mlMarket.settled_at).toEqual(expect.any(String));

    // The score moves without the source marking a correction: what was settled stays settled.
    await service.apply("s3", [finished("AFL_CORR", 100, 95)]);
    const unmarked = await resultOf(service, "AFL_CORR");
    expect(unmarked.markets).toEqual(settled.markets);
    expect(unmarked.corrections).toEqual([]);

    const correctedAtMs = now - 60_000;
    await service.apply("s4", [finished("AFL_CORR", 100, 95, correctedAtMs)]);
    const corrected = await resultOf(service, "AFL_CORR");
    expect([
      verdictOf(corrected, "points-home-game-ml-home"),
      verdictOf(corrected, "points-away-game-ml-away"),
    ]).toEqual(["won", "lost"]);
    expect(verdictOf(corrected, "points-all-game-ou-over")).toBe("won");
    expect(corrected.corrected_at).toBe(new Date(correctedAtMs).toISOString());
    expect(corrected.corrections).toHaveLength(1);
    const [correction] = corrected.corrections;
    expect(correction.scores_before.map((s: any) => [s.role, s.score])).toEqual([
      ["home", 70],
      ["away", 95],
    ]);
    expect(correction.scores.map((s: any) => [s.role, s.score])).toEqual([
      ["home", 100],
      ["away", 95],
    ]);
    const change = (oddID: string) =>
      correction.outcomes.find((o: any) => o.outcome_id === v1.v1Id("outcome", oddID)) ?? null;
    expect(change("points-home-game-ml-home")).toEqual({
      market_id: v1.v1Id("market", "points-all-game-ml"),
      outcome_id: v1.v1Id("outcome", "points-home-game-ml-home"),
      previous_verdict: "lost",
      verdict: "won",
    });
    expect(change("points-all-game-ou-under")).toMatchObject({ previous_verdict: "won", verdict: "lost" });
    // The player prop graded void (no player result) both times: not a change.
    expect(change("disposals-JOHN_SMITH_1_AFL-game-ou-over")).toBeNull();

    // The same correction again (a replayed cycle) or a restart change nothing.
    await service.apply("s4", [finished("AFL_CORR", 100, 95, correctedAtMs)]);
    expect(await resultOf(service, "AFL_CORR")).toEqual(corrected);
    // Results moved again under the same correction mark: the scores follow, the verdicts do not.
    await service.apply("s5", [finished("AFL_CORR", 60, 95, correctedAtMs)]);
    const moved = await resultOf(service, "AFL_CORR");
    expect(moved.scores.map((s: any) => s.score)).toEqual([60, 95]);
    expect([moved.markets, moved.corrections]).toEqual([corrected.markets, corrected.corrections]);
    const restarted = await startEventsService(service.uri);
    try {
      expect(await resultOf(restarted, "AFL_CORR")).toEqual(moved);
    } finally {
      await restarted.stop();
    }
  });

  it("a correction seen before anything was settled is simply the result settled on", async () => {
    await service.apply("f1", [finished("AFL_FIRST_SEEN", 50, 80, now - 120_000)]);
    const result = await resultOf(service, "AFL_FIRST_SEEN");
    expect(result.corrections).toEqual([]);
    expect(result.corrected_at).toBeNull();
  });

  it("grades a finished event written without odds on the closed sides it carries (a backfilled event)", async () => {
    const backfilled = finished("AFL_BACKFILLED", 88, 61);
    backfilled.closedOdds = eventProto({ eventId: "AFL_BACKFILLED", startsAtMs: now - 4 * HOUR }).odds;
    await service.apply("b1", [backfilled]);
    const result = await resultOf(service, "AFL_BACKFILLED");
    expect(result.pending_markets).toBe(0);
    expect(result.markets.length).toBeGreaterThanOrEqual(3);
    expect(verdictOf(result, "points-home-game-ml-home")).toBe("won");
    expect(verdictOf(result, "points-all-game-ou-under")).toBe("won");
    // The closed sides are graded, never served as odds.
    const [event] = (await service.list({ eventIds: ["AFL_BACKFILLED"] })).items;
    expect(event.odds).toEqual({});
  });
});
