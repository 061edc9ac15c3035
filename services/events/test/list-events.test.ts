import { Metadata, status } from "@grpc/grpc-js";
import { callUnary, metricsRegistry } from "@odds/platform";
import { common, events } from "@odds/proto";
import { eventProto, HOUR } from "./fixtures";
import { type EventsHarness, INTERNAL, rejection, startEventsService } from "./harness";

/** GET /v2/events/ rules, through the real gRPC server over a real FerretDB database. */

const now = Date.now();
const MIN = 60_000;

const DATASET = [
  eventProto({ eventId: "AFL_A", startsAtMs: now + HOUR, lastUpdatedAtMs: now }),
  eventProto({ eventId: "AFL_B", startsAtMs: now + HOUR, lastUpdatedAtMs: now }),
  eventProto({
    eventId: "AFL_LIVE",
    startsAtMs: now - HOUR,
    lastUpdatedAtMs: now,
    homeTeamId: "RICHMOND_TIGERS_AFL",
    playerId: "JACK_RIEWOLDT_8_AFL",
    status: { started: true, live: true, currentPeriodId: "2q", periodsStarted: ["1q", "2q"], periodsEnded: ["1q"] },
  }),
  eventProto({
    eventId: "NRL_FINAL",
    leagueId: "NRL",
    sportId: "RUGBY_LEAGUE",
    startsAtMs: now - 3 * HOUR,
    lastUpdatedAtMs: now,
    status: { started: true, ended: true, finalized: true, completed: true },
  }),
  eventProto({
    eventId: "EPL_OLD",
    leagueId: "EPL",
    sportId: "SOCCER",
    startsAtMs: now - 30 * HOUR,
    lastUpdatedAtMs: now,
    status: { started: true, ended: true, finalized: true, completed: true },
  }),
  eventProto({
    eventId: "EPL_CANCELLED",
    leagueId: "EPL",
    sportId: "SOCCER",
    startsAtMs: now + 5 * HOUR,
    lastUpdatedAtMs: now,
    status: { cancelled: true, delayed: true },
  }),
  eventProto({
    eventId: "BBL_PROP",
    leagueId: "BBL",
    sportId: "CRICKET",
    type: "prop",
    startsAtMs: now + 48 * HOUR,
    lastUpdatedAtMs: now,
    noOdds: true,
  }),
  eventProto({
    eventId: "IPL_SUSPENDED",
    leagueId: "IPL",
    sportId: "CRICKET",
    startsAtMs: now + 3 * HOUR,
    lastUpdatedAtMs: now,
    suspended: true,
  }),
  eventProto({
    eventId: "A_LEAGUE_STALE",
    leagueId: "A_LEAGUE",
    sportId: "SOCCER",
    startsAtMs: now + 2 * HOUR,
    lastUpdatedAtMs: now - 50 * MIN,
  }),
];

/** Order of the whole dataset in /events order (startsAt, then eventID). */
const ORDER = [
  "EPL_OLD",
  "NRL_FINAL",
  "AFL_LIVE",
  "AFL_A",
  "AFL_B",
  "A_LEAGUE_STALE",
  "IPL_SUSPENDED",
  "EPL_CANCELLED",
  "BBL_PROP",
];
const VISIBLE = ORDER.filter((id) => id !== "EPL_OLD");
const ALL_IDS = { eventIds: ORDER };

/** The event observed at `atMs`, each listed bookmaker's prices at its own instant (the rest as they were). */
function observedAt(event: events.Event, atMs: number, bookmakers: Record<string, number>): events.Event {
  const stamp = (byBookmaker: Record<string, events.BookmakerOdds>) =>
    Object.fromEntries(
      Object.entries(byBookmaker).map(([id, price]) => [
        id,
        { ...price, lastUpdatedAtMs: bookmakers[id] ?? price.lastUpdatedAtMs },
      ]),
    );
  return {
    ...event,
    info: { ...event.info!, lastUpdatedAtMs: atMs },
    odds: Object.fromEntries(
      Object.entries(event.odds).map(([oddID, side]) => [
        oddID,
        {
          ...side,
          byBookmaker: stamp(side.byBookmaker),
          altLines: Object.fromEntries(
            Object.entries(side.altLines).map(([line, alt]) => [line, { byBookmaker: stamp(alt.byBookmaker) }]),
          ),
        },
      ]),
    ),
  };
}

let service: EventsHarness;

beforeAll(async () => {
  service = await startEventsService();
  await service.apply("cycle-1", DATASET);
});

afterAll(() => service.stop());

/** ListEvents of AFL events for the internal plan, `limit` a page, with `request`'s fields over that. */
function aflPage(feedService: EventsHarness, limit: number) {
  return (request: Partial<events.ListEventsRequest>) =>
    callUnary(
      feedService.client,
      feedService.client.listEvents,
      events.ListEventsRequest.create({ caller: INTERNAL, leagueIds: ["AFL"], limit, ...request }),
    );
}

/** A page's items as text. */
function bodiesOf(listed: common.JsonPage): string[] {
  return listed.items.map((item) => Buffer.from(item).toString("utf8"));
}

describe("selection", () => {
  it("lists events by startsAt then eventID and omits those that kicked off more than 24 hours ago", async () => {
    expect(await service.listIDs({ limit: 100 })).toEqual(VISIBLE);
  });

  it("includes events past the cut-off with includeFinished or a date window", async () => {
    expect(await service.listIDs({ limit: 100, includeFinished: true })).toEqual(ORDER);
    expect(await service.listIDs({ limit: 100, startsBeforeMs: now - 2 * HOUR })).toEqual(["EPL_OLD", "NRL_FINAL"]);
  });

  it("keeps events starting strictly after startsAfter and strictly before startsBefore", async () => {
    expect(await service.listIDs({ limit: 100, startsAfterMs: now + HOUR, startsBeforeMs: now + 5 * HOUR })).toEqual([
      "A_LEAGUE_STALE",
      "IPL_SUSPENDED",
    ]);
    expect(
      await service.listIDs({ limit: 100, startsAfterMs: now + HOUR - 1, startsBeforeMs: now + HOUR + 1 }),
    ).toEqual(["AFL_A", "AFL_B"]);
  });

  const flagCases: [keyof events.ListEventsRequest, string[]][] = [
    ["live", ["AFL_LIVE"]],
    ["started", ["NRL_FINAL", "AFL_LIVE"]],
    ["ended", ["NRL_FINAL"]],
    ["finalized", ["NRL_FINAL"]],
    ["cancelled", ["EPL_CANCELLED"]],
    ["oddsAvailable", VISIBLE.filter((id) => id !== "BBL_PROP" && id !== "IPL_SUSPENDED")],
    ["oddsPresent", VISIBLE.filter((id) => id !== "BBL_PROP")],
  ];

  it.each(flagCases)("filters %s: true only matching, false only non-matching, omitted all", async (flag, matching) => {
    expect(await service.listIDs({ limit: 100, [flag]: true })).toEqual(matching);
    expect(await service.listIDs({ limit: 100, [flag]: false })).toEqual(
      VISIBLE.filter((id) => !matching.includes(id)),
    );
    expect(await service.listIDs({ limit: 100 })).toEqual(VISIBLE);
  });

  it("filters by sportID, leagueID, type, teamID and playerID lists", async () => {
    expect(await service.listIDs({ limit: 100, sportIds: ["CRICKET", "RUGBY_LEAGUE"] })).toEqual([
      "NRL_FINAL",
      "IPL_SUSPENDED",
      "BBL_PROP",
    ]);
    expect(await service.listIDs({ limit: 100, leagueIds: ["EPL"] })).toEqual(["EPL_CANCELLED"]);
    expect(await service.listIDs({ limit: 100, type: "prop" })).toEqual(["BBL_PROP"]);
    expect(await service.listIDs({ limit: 100, teamIds: ["RICHMOND_TIGERS_AFL", "NOBODY"] })).toEqual(["AFL_LIVE"]);
    expect(await service.listIDs({ limit: 100, playerIds: ["JACK_RIEWOLDT_8_AFL"] })).toEqual(["AFL_LIVE"]);
  });

  it("with eventIDs selects only those events, ignoring every other selector and the cut-off (rule 1)", async () => {
    const ids = await service.listIDs({
      eventIds: ["EPL_OLD", "AFL_A", "UNKNOWN"],
      sportIds: ["CRICKET"],
      leagueIds: ["BBL"],
      live: true,
      started: false,
      finalized: false,
      ended: true,
      cancelled: true,
      type: "prop",
      teamIds: ["NOBODY"],
      oddsPresent: false,
      startsAfterMs: now + 100 * HOUR,
      startsBeforeMs: now - 100 * HOUR,
      includeFinished: false,
    });
    expect(ids).toEqual(["EPL_OLD", "AFL_A"]);
  });

  it("with eventIDs still shapes odds by oddID, bookmakerID, playerID, includeAltLines and includeOpposingOdds (rule 2)", async () => {
    const [byOdd] = (
      await service.list({ eventIds: ["AFL_A"], oddIds: ["points-home-game-ml-home"], includeOpposingOdds: true })
    ).items;
    expect(Object.keys(byOdd.odds)).toEqual(["points-away-game-ml-away", "points-home-game-ml-home"]);

    const [byBookmaker] = (await service.list({ eventIds: ["AFL_A"], bookmakerIds: ["tab"], includeAltLines: true }))
      .items;
    expect(Object.keys(byBookmaker.odds)).toEqual(["points-all-game-ou-over", "points-all-game-ou-under"]);
    expect(Object.keys(byBookmaker.odds["points-all-game-ou-over"].altLines)).toEqual(["170.5"]);

    const [byPlayer] = (await service.list({ eventIds: ["AFL_LIVE"], playerIds: ["JACK_RIEWOLDT_8_AFL"] })).items;
    expect(Object.keys(byPlayer.odds)).toEqual([
      "disposals-JACK_RIEWOLDT_8_AFL-game-ou-over",
      "disposals-JACK_RIEWOLDT_8_AFL-game-ou-under",
    ]);
  });
});

describe("odds shaping", () => {
  it("matches every player's prop with PLAYER_ID, across events, through the oddID filter", async () => {
    const { items } = await service.list({
      eventIds: ["AFL_A", "AFL_LIVE"],
      oddIds: ["disposals-PLAYER_ID-game-ou-over"],
    });
    expect(items.map((event) => Object.keys(event.odds))).toEqual([
      ["disposals-JACK_RIEWOLDT_8_AFL-game-ou-over"],
      ["disposals-JOHN_SMITH_1_AFL-game-ou-over"],
    ]);
  });

  it("adds the opposing side only with includeOpposingOdds, and none for pick markets", async () => {
    const oddIds = ["disposals-PLAYER_ID-game-ou-under", "firstgoal-all-game-pick-home"];
    const [without] = (await service.list({ eventIds: ["AFL_A"], oddIds })).items;
    const [withOpposing] = (await service.list({ eventIds: ["AFL_A"], oddIds, includeOpposingOdds: true })).items;
    expect(Object.keys(without.odds)).toEqual([
      "disposals-JOHN_SMITH_1_AFL-game-ou-under",
      "firstgoal-all-game-pick-home",
    ]);
    expect(Object.keys(withOpposing.odds)).toEqual([
      "disposals-JOHN_SMITH_1_AFL-game-ou-over",
      "disposals-JOHN_SMITH_1_AFL-game-ou-under",
      "firstgoal-all-game-pick-home",
    ]);
    expect(withOpposing.odds["firstgoal-all-game-pick-home"].opposingOddID).toBeNull();
  });

  it("includes altLines only with includeAltLines=true", async () => {
    const [plain] = (await service.list({ eventIds: ["AFL_A"] })).items;
    const [alt] = (await service.list({ eventIds: ["AFL_A"], includeAltLines: true })).items;
    expect(plain.odds["points-all-game-ou-over"]).not.toHaveProperty("altLines");
    expect(alt.odds["points-all-game-ou-over"].altLines["170.5"].byBookmaker.tab).toMatchObject({
      bookmakerID: "tab",
      odds: "+120",
      overUnder: "170.5",
    });
  });

  it("never renders open or close prices", async () => {
    const { items } = await service.list({ limit: 100, includeFinished: true, includeAltLines: true });
    const json = JSON.stringify(items);
    for (const field of ["openOdds", "closeOdds", "openSpread", "closeSpread", "openOverUnder", "closeOverUnder"])
      expect(json).not.toContain(field);
  });

  it("marks info.stale when the source has written nothing for 45 minutes", async () => {
    const { items } = await service.list({ eventIds: ["A_LEAGUE_STALE", "AFL_A"] });
    expect(items.map((event) => [event.eventID, event.info.stale])).toEqual([
      ["AFL_A", false],
      ["A_LEAGUE_STALE", true],
    ]);
  });
});

describe("plan visibility (rule 4)", () => {
  const limited = common.Caller.create({
    keyId: "lite",
    tier: "lite",
    allSports: true,
    leagueIds: ["AFL", "EPL"],
    bookmakerIds: ["sportsbet", "tab"],
    fairOdds: false,
  });

  it("hides leagues and sports outside the plan, even when asked for by eventID", async () => {
    expect(await service.listIDs({ caller: limited, limit: 100 })).toEqual([
      "AFL_LIVE",
      "AFL_A",
      "AFL_B",
      "EPL_CANCELLED",
    ]);
    expect(await service.listIDs({ caller: limited, eventIds: ["NRL_FINAL", "AFL_A"] })).toEqual(["AFL_A"]);
    const soccerOnly = common.Caller.create({ allLeagues: true, sportIds: ["SOCCER"], allBookmakers: true });
    expect(await service.listIDs({ caller: soccerOnly, limit: 100 })).toEqual(["A_LEAGUE_STALE", "EPL_CANCELLED"]);
  });

  it("shows only the plan's bookmakers and nulls fair prices for plans without fair odds", async () => {
    const [event] = (await service.list({ caller: limited, eventIds: ["AFL_A"], includeAltLines: true })).items;
    const bookmakers = new Set<string>();
    for (const side of Object.values<any>(event.odds)) {
      Object.keys(side.byBookmaker).forEach((id) => bookmakers.add(id));
      expect(side.fairOdds).toBeNull();
      expect(side.fairOverUnder).toBeNull();
    }
    expect([...bookmakers].sort()).toEqual(["sportsbet", "tab"]);
    expect(event.odds).not.toHaveProperty("firstgoal-all-game-pick-home");
    expect(Object.keys(event.odds["points-all-game-ou-over"].altLines)).toEqual(["170.5"]);
    expect(event.info.bookmakersPresent).toEqual(["sportsbet", "tab"]);

    const [internal] = (await service.list({ eventIds: ["AFL_A"] })).items;
    expect(internal.odds["points-home-game-ml-home"].fairOdds).toBe("+100");
  });

  it("sees nothing without a caller", async () => {
    expect(await service.listIDs({ caller: undefined, limit: 100 })).toEqual([]);
  });
});

describe("paging", () => {
  it("serves 10 events by default and rejects a limit above 100 naming limit", async () => {
    const many = Array.from({ length: 14 }, (_, i) =>
      eventProto({
        eventId: `EPL_FILL_${String(i).padStart(2, "0")}`,
        leagueId: "EPL",
        sportId: "SOCCER",
        startsAtMs: now + (60 + i) * HOUR,
        lastUpdatedAtMs: now,
      }),
    );
    const paging = await startEventsService();
    try {
      await paging.apply("fill", many);
      const first = await paging.list({});
      expect(first.items).toHaveLength(10);
      expect(first.nextCursor).not.toBe("");
      const failure = await rejection(paging.list({ limit: 101 }));
      expect(failure.code).toBe(status.INVALID_ARGUMENT);
      expect(failure.details).toMatch(/^limit: /);
    } finally {
      await paging.stop();
    }
  });

  it("pages to the end with nextCursor empty on the last page, concatenating to the unpaged list", async () => {
    const unpaged = await service.listIDs({ limit: 100, includeFinished: true });
    const paged: string[] = [];
    let cursor = "";
    let pages = 0;
    do {
      const page = await service.list({ limit: 2, includeFinished: true, cursor });
      paged.push(...page.items.map((event) => event.eventID));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== "");
    expect(paged).toEqual(unpaged);
    expect(pages).toBe(Math.ceil(unpaged.length / 2));
  });

  it("rejects a malformed cursor and a cursor replayed with other filters, naming cursor", async () => {
    const first = await service.list({ limit: 2, includeFinished: true });
    const replayed = await rejection(
      service.list({ limit: 2, includeFinished: true, live: true, cursor: first.nextCursor }),
    );
    expect(replayed).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/^cursor: /) });
    const malformed = await rejection(service.list({ cursor: "not a cursor!" }));
    expect(malformed).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/^cursor: /) });
    const tampered = await rejection(service.list({ cursor: Buffer.from('{"v":1}').toString("base64url") }));
    expect(tampered.code).toBe(status.INVALID_ARGUMENT);
  });

  it("accepts the same cursor with a different limit", async () => {
    const first = await service.list({ limit: 2, includeFinished: true });
    expect(await service.listIDs({ limit: 3, includeFinished: true, cursor: first.nextCursor })).toEqual(
      ORDER.slice(2, 5),
    );
  });

  it("neither skips nor repeats an event that stays in the result when a cycle lands between pages", async () => {
    const live = await startEventsService();
    const at = (id: string, hours: number) =>
      eventProto({ eventId: id, startsAtMs: now + hours * HOUR, lastUpdatedAtMs: now });
    try {
      await live.apply("c1", [at("E1", 1), at("E2", 2), at("E3", 3), at("E4", 4), at("E5", 5), at("E6", 6)]);
      const first = await live.list({ limit: 3 });
      expect(first.items.map((event) => event.eventID)).toEqual(["E1", "E2", "E3"]);
      // New events before and after the boundary, and a changed event on the next page.
      const changed = at("E5", 5);
      changed.status!.live = true;
      await live.apply("c2", [at("E0", 0.5), at("E3B", 3.5), changed]);
      const rest: any[] = [];
      let cursor = first.nextCursor;
      while (cursor !== "") {
        const page = await live.list({ limit: 3, cursor });
        rest.push(...page.items);
        cursor = page.nextCursor;
      }
      expect(rest.map((event) => event.eventID)).toEqual(["E3B", "E4", "E5", "E6"]);
      expect(rest.find((event) => event.eventID === "E5").status.live).toBe(true);
    } finally {
      await live.stop();
    }
  });
});

describe("feed", () => {
  it("applies a replayed cycle as unchanged and only changed events as upserted", async () => {
    const feedService = await startEventsService();
    try {
      const batch = [
        eventProto({ eventId: "X1", lastUpdatedAtMs: now }),
        eventProto({ eventId: "X2", lastUpdatedAtMs: now }),
      ];
      expect(await feedService.apply("k1", batch)).toEqual({ upserted: 2, unchanged: 0, unknownEventIds: [] });
      const version = feedService.model.feedState.version;
      expect(await feedService.apply("k1", batch)).toEqual({ upserted: 0, unchanged: 2, unknownEventIds: [] });
      expect(feedService.model.feedState.version).toBe(version);
      const reordered = { ...batch[1]!, odds: Object.fromEntries(Object.entries(batch[1]!.odds).reverse()) };
      expect(await feedService.apply("k2", [batch[0]!, reordered])).toEqual({
        upserted: 0,
        unchanged: 2,
        unknownEventIds: [],
      });
      const moved = eventProto({ eventId: "X2", lastUpdatedAtMs: now, status: { live: true } });
      expect(await feedService.apply("k3", [batch[0]!, moved])).toEqual({
        upserted: 1,
        unchanged: 1,
        unknownEventIds: [],
      });
      expect(feedService.model.feedState.version).toBe(version + 1);
    } finally {
      await feedService.stop();
    }
  });

  it("restamps an event observed again unchanged (whole or as its stamps alone) to the bytes a fresh write renders, and keeps it across a restart", async () => {
    const feedService = await startEventsService();
    const reference = await startEventsService();
    try {
      const first = observedAt(eventProto({ eventId: "R1", startsAtMs: now + HOUR }), now - 50 * MIN, {});
      await feedService.apply("s1", [first]);
      expect((await feedService.list({ eventIds: ["R1"] })).items[0].info.stale).toBe(true);
      const version = feedService.model.feedState.version;

      // Sent whole again, nothing but the observation times moved: restamped, not rewritten.
      const again = observedAt(first, now - 5 * MIN, {
        sportsbet: now - 5 * MIN,
        pinnacle: now - 5 * MIN,
        tab: now - 5 * MIN,
      });
      expect(await feedService.apply("s2", [again])).toEqual({ upserted: 0, unchanged: 1, unknownEventIds: [] });
      expect(feedService.model.feedState.version).toBe(version + 1);
      await reference.apply("s2", [again]);
      const request = { eventIds: ["R1"], includeAltLines: true };
      expect(await feedService.list(request)).toEqual(await reference.list(request));
      expect((await feedService.list(request)).items[0].info.stale).toBe(false);

      // Only its stamps: one bookmaker observed later than the rest; an unknown event is named back.
      const stamps = { eventId: "R1", lastUpdatedAtMs: now, bookmakerObservedAtMs: { sportsbet: now } };
      const unknown = { eventId: "NOT_HELD", lastUpdatedAtMs: now, bookmakerObservedAtMs: {} };
      expect(await feedService.apply("s3", [], [stamps, unknown])).toEqual({
        upserted: 0,
        unchanged: 1,
        unknownEventIds: ["NOT_HELD"],
      });
      const latest = observedAt(first, now, { sportsbet: now, pinnacle: now - 5 * MIN, tab: now - 5 * MIN });
      await reference.apply("s3", [latest]);
      expect(await feedService.list(request)).toEqual(await reference.list(request));

      // Stamps never move back (a late or replayed cycle).
      await feedService.apply(
        "s0",
        [],
        [{ ...stamps, lastUpdatedAtMs: now - HOUR, bookmakerObservedAtMs: { sportsbet: now - HOUR } }],
      );
      expect(await feedService.list(request)).toEqual(await reference.list(request));

      const restarted = await startEventsService(feedService.uri);
      try {
        expect(await restarted.list(request)).toEqual(await reference.list(request));
      } finally {
        await restarted.stop();
      }
    } finally {
      await reference.stop();
      await feedService.stop();
    }
  });

  it("defaults lastUpdatedAt to the cycle's source write time", async () => {
    const feedService = await startEventsService();
    try {
      const observedAtMs = now - 2 * HOUR;
      const event = eventProto({ eventId: "NO_WRITE_TIME" });
      event.info!.lastUpdatedAtMs = 0;
      await callUnary(feedService.client, feedService.client.applyCycle, {
        cycleId: "o",
        observedAtMs,
        events: [event],
        restamped: [],
      });
      const [served] = (await feedService.list({ eventIds: ["NO_WRITE_TIME"] })).items;
      expect(served.info).toMatchObject({ lastUpdatedAt: new Date(observedAtMs).toISOString(), stale: true });
    } finally {
      await feedService.stop();
    }
  });

  it("applies an event a call carries twice once, as its last copy", async () => {
    const feedService = await startEventsService();
    try {
      const first = eventProto({ eventId: "TWICE", lastUpdatedAtMs: now - MIN });
      const last = eventProto({ eventId: "TWICE", lastUpdatedAtMs: now - MIN });
      last.odds["points-home-game-ml-home"]!.bookOdds = "-160";
      const applied = await callUnary(feedService.client, feedService.client.applyCycle, {
        cycleId: "twice",
        observedAtMs: now - MIN,
        events: [first, eventProto({ eventId: "ONCE", lastUpdatedAtMs: now - MIN }), last],
        restamped: [],
      });
      expect(applied.upserted).toBe(2);
      const served = (await feedService.list({ eventIds: ["TWICE", "ONCE"] })).items;
      expect(served.map((event) => event.eventID).sort()).toEqual(["ONCE", "TWICE"]);
      const twice = served.find((event) => event.eventID === "TWICE")!;
      expect(twice.odds["points-home-game-ml-home"].bookOdds).toBe("-160");
    } finally {
      await feedService.stop();
    }
  });

  it("tags a page by what decides its bytes, and answers a caller naming the tag it holds as unchanged, without items", async () => {
    const feedService = await startEventsService();
    try {
      const page = aflPage(feedService, 1);
      const base = observedAt(eventProto({ eventId: "T1", startsAtMs: now + HOUR }), now - 5 * MIN, {});
      await feedService.apply("t1", [base, eventProto({ eventId: "T2", startsAtMs: now + 2 * HOUR })]);

      const first = await page({});
      expect(first.tag).not.toBe("");
      expect(first.items).toHaveLength(1);
      expect(first.unchanged ?? false).toBe(false);
      expect(await page({ ifTag: first.tag })).toEqual({ ...first, items: [], itemTags: [], unchanged: true });
      // A tag the caller does not hold (or none) gets the whole page, tagged the same.
      const other = await page({ ifTag: "not-this-page" });
      expect([other.tag, other.unchanged ?? false, bodiesOf(other)]).toEqual([first.tag, false, bodiesOf(first)]);

      // Another shape, another page of the same events, another cursor: other tags.
      expect((await page({ bookmakerIds: ["sportsbet"] })).tag).not.toBe(first.tag);
      expect((await page({ includeAltLines: true })).tag).not.toBe(first.tag);
      expect((await page({ cursor: first.nextCursor })).tag).not.toBe(first.tag);

      // Observed again, content unchanged: its lastUpdatedAt moved, so the page did and is sent whole.
      await feedService.apply("t2", [observedAt(base, now - MIN, { sportsbet: now - MIN })]);
      const restamped = await page({ ifTag: first.tag });
      expect(restamped.unchanged ?? false).toBe(false);
      expect(restamped.tag).not.toBe(first.tag);
      expect(bodiesOf(restamped)).not.toEqual(bodiesOf(first));

      // Its content changed: another tag again.
      const moved = eventProto({ eventId: "T1", startsAtMs: now + HOUR, lastUpdatedAtMs: now - MIN });
      moved.odds["points-home-game-ml-home"]!.bookOdds = "-160";
      await feedService.apply("t3", [moved]);
      const changed = await page({ ifTag: restamped.tag });
      expect([changed.unchanged ?? false, changed.items.length]).toEqual([false, 1]);
      expect(changed.tag).not.toBe(restamped.tag);
    } finally {
      await feedService.stop();
    }
  });

  it("tags each item, and sends the items a caller says it holds empty, the others whole", async () => {
    const feedService = await startEventsService();
    try {
      const page = aflPage(feedService, 10);
      const ids = ["H1", "H2", "H3"];
      await feedService.apply(
        "h1",
        ids.map((eventId, index) => eventProto({ eventId, startsAtMs: now + (index + 1) * HOUR })),
      );
      const first = await page({});
      expect(first.itemTags).toHaveLength(3);
      expect(new Set(first.itemTags).size).toBe(3);
      // The same items, the same tags; an unchanged page sends none.
      expect((await page({})).itemTags).toEqual(first.itemTags);
      expect(await page({ ifTag: first.tag, heldItemTags: first.itemTags })).toMatchObject({
        items: [],
        itemTags: [],
        unchanged: true,
      });

      // H2's prices move: a caller holding the page gets H2 whole and the others empty, under their tags.
      const moved = eventProto({ eventId: "H2", startsAtMs: now + 2 * HOUR, lastUpdatedAtMs: now - MIN });
      moved.odds["points-home-game-ml-home"]!.bookOdds = "-160";
      await feedService.apply("h2", [moved]);
      const whole = await page({});
      const counted = async (item: string) =>
        (await metricsRegistry.getSingleMetric("odds_events_page_items_total")!.get()).values.find(
          (value) => value.labels.item === item,
        )?.value ?? 0;
      const [heldBefore, renderedBefore] = [await counted("held"), await counted("rendered")];
      const renewed = await page({ ifTag: first.tag, heldItemTags: first.itemTags });
      expect([(await counted("held")) - heldBefore, (await counted("rendered")) - renderedBefore]).toEqual([2, 1]);
      expect(renewed.unchanged ?? false).toBe(false);
      expect(renewed.tag).toBe(whole.tag);
      expect(renewed.itemTags).toEqual(whole.itemTags);
      expect([renewed.itemTags[0], renewed.itemTags[2]]).toEqual([first.itemTags[0], first.itemTags[2]]);
      expect(renewed.itemTags[1]).not.toBe(first.itemTags[1]);
      expect(bodiesOf(renewed)).toEqual(["", bodiesOf(whole)[1], ""]);
      expect(JSON.parse(bodiesOf(renewed)[1]!).odds["points-home-game-ml-home"].bookOdds).toBe("-160");
      // Tags of no item on the page get every item whole.
      expect(bodiesOf(await page({ ifTag: first.tag, heldItemTags: ["not-an-item"] }))).toEqual(bodiesOf(whole));
    } finally {
      await feedService.stop();
    }
  });

  it("reports the instant the last applied cycle was observed at, kept across a restart", async () => {
    const feedService = await startEventsService();
    try {
      const status = () => callUnary(feedService.client, feedService.client.getFeedStatus, {});
      expect((await status()).lastCycleObservedAtMs).toBe(0);
      for (const [cycleId, observedAtMs] of [
        ["cycle-a", now - 2 * HOUR],
        ["cycle-b", now - HOUR],
      ] as const) {
        await callUnary(feedService.client, feedService.client.applyCycle, {
          cycleId,
          observedAtMs,
          events: [eventProto({ eventId: "OBSERVED", lastUpdatedAtMs: observedAtMs })],
          restamped: [],
        });
      }
      expect(await status()).toMatchObject({ lastCycleId: "cycle-b", lastCycleObservedAtMs: now - HOUR });
      const restarted = await startEventsService(feedService.uri);
      try {
        expect(await callUnary(restarted.client, restarted.client.getFeedStatus, {})).toMatchObject({
          lastCycleId: "cycle-b",
          lastCycleObservedAtMs: now - HOUR,
        });
      } finally {
        await restarted.stop();
      }
    } finally {
      await feedService.stop();
    }
  });

  it("pushes the feed status to a watch: the current one at once, then each cycle applied, until it stops", async () => {
    const feedService = await startEventsService();
    const watch = feedService.client.watchFeedStatus({}, new Metadata(), { deadline: Infinity });
    const statuses = watch[Symbol.asyncIterator]() as AsyncIterator<events.FeedStatus>;
    try {
      const first = (await statuses.next()).value as events.FeedStatus;
      expect(first).toMatchObject({ lastCycleId: "", eventCount: 0 });
      await feedService.apply("watched-1", [eventProto({ eventId: "WATCHED", lastUpdatedAtMs: now })]);
      const applied = (await statuses.next()).value as events.FeedStatus;
      expect(applied).toMatchObject({ lastCycleId: "watched-1", eventCount: 1 });
      expect(applied.lastCycleAtMs).toBeGreaterThan(0);
      // The same cycle again changes no event, yet is a cycle taken on: its watchers hear of it.
      await feedService.apply("watched-2", [eventProto({ eventId: "WATCHED", lastUpdatedAtMs: now })]);
      expect((await statuses.next()).value).toMatchObject({ lastCycleId: "watched-2", eventCount: 1 });
      // Stopping, the service ends its watches: the stream closes cleanly, and its caller opens another elsewhere.
      feedService.feed.endWatches();
      expect((await statuses.next()).done).toBe(true);
    } finally {
      watch.cancel();
      await feedService.stop();
    }
  });

  it("reports the last cycle time and event count", async () => {
    const status = await callUnary(service.client, service.client.getFeedStatus, {});
    expect(status.eventCount).toBe(DATASET.length);
    expect(status.lastCycleAtMs).toBeGreaterThanOrEqual(now);
  });

  it("reloads the read model from the store on restart and serves the same bytes", async () => {
    const before = await service.list({ ...ALL_IDS, includeAltLines: true });
    const restarted = await startEventsService(service.uri);
    try {
      expect(await restarted.list({ ...ALL_IDS, includeAltLines: true })).toEqual(before);
      expect((await callUnary(restarted.client, restarted.client.getFeedStatus, {})).eventCount).toBe(DATASET.length);
    } finally {
      await restarted.stop();
    }
  });

  it("picks up a cycle applied through another replica by polling the feed version", async () => {
    const writer = await startEventsService();
    const replica = await startEventsService(writer.uri);
    const watch = replica.client.watchFeedStatus({}, new Metadata(), { deadline: Infinity });
    const statuses = watch[Symbol.asyncIterator]() as AsyncIterator<events.FeedStatus>;
    try {
      expect((await statuses.next()).value).toMatchObject({ lastCycleId: "" });
      replica.feed.startPolling(50);
      await writer.apply("r1", [eventProto({ eventId: "REPLICATED", startsAtMs: now + HOUR, lastUpdatedAtMs: now })]);
      // The replica's watchers hear of the cycle it loaded.
      expect((await statuses.next()).value).toMatchObject({ lastCycleId: "r1", eventCount: 1 });
      let ids: string[] = [];
      for (let attempt = 0; attempt < 200 && ids.length === 0; attempt++) {
        ids = await replica.listIDs({ eventIds: ["REPLICATED"] });
        if (ids.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(ids).toEqual(["REPLICATED"]);
    } finally {
      watch.cancel();
      await replica.stop();
      await writer.stop();
    }
  });
});
