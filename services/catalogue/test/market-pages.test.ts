import { callUnary } from "@odds/platform";
import { catalogue } from "@odds/proto";
import { eventMarkets, firstCycle } from "./fixtures";
import { callers, startCatalogue, type CatalogueHarness } from "./harness";

/**
 * Markets are kept rendered per view (plan scope + sportID/leagueID) until the catalogue
 * changes. These tests hold the kept pages to what a service with nothing kept renders, byte
 * for byte, across views, paging and catalogue changes, and check that pages of a view are
 * served without rendering again.
 */

const BOOKMAKERS = ["bet365", "ladbrokes", "neds", "sportsbet", "tab"];

/** The first cycle plus 30 events (AFL, NRL, EPL) with 40 player props each, priced by rotating books. */
function bigCycle(withoutBookmaker?: string): Partial<catalogue.ApplyCatalogueRequest> {
  const cycle = firstCycle();
  for (const [index, leagueId] of ["AFL", "NRL", "EPL"].entries()) {
    for (let event = 0; event < 10; event++) {
      const priced: Record<string, string[]> = {};
      for (let prop = 0; prop < 40; prop++) {
        const player = `PLAYER${event}X${prop}_1_${leagueId}`;
        const books = BOOKMAKERS.filter((_, b) => (b + prop + event + index) % 3 !== 0);
        priced[`disposals-${player}-game-ou-over`] = books.filter((b) => b !== withoutBookmaker);
        priced[`disposals-${player}-game-ou-under`] = prop % 7 === 0 ? [] : books.slice(0, 1);
      }
      cycle.events!.push(eventMarkets(`${leagueId}_2026-12-0${event}_big_${index}`, leagueId, true, priced));
    }
  }
  return cycle;
}

/** Views that render markets differently, and filters that only select whole markets. */
const VIEWS: Partial<catalogue.ListMarketsRequest>[] = [
  { caller: callers.everything },
  { caller: callers.everything, isSupported: false },
  { caller: callers.aflOnly },
  { caller: callers.nrlOnly },
  { caller: callers.everything, leagueIds: ["AFL", "NRL"] },
  { caller: callers.everything, sportIds: ["SOCCER"] },
  { caller: callers.everything, bookmakerIds: ["tab"] },
  { caller: callers.nrlOnly, bookmakerIds: ["neds"], isSupported: false },
  { caller: callers.everything, isProp: true, propType: "player_prop", leagueIds: ["EPL"] },
  // A filter naming an empty league matches nothing: it must not share the unfiltered view.
  { caller: callers.everything, leagueIds: [""], isSupported: false },
];

/** The markets' JSON as the service sends them, one per line. */
async function page(harness: CatalogueHarness, request: Partial<catalogue.ListMarketsRequest>) {
  const answer = await callUnary(
    harness.client,
    harness.client.listMarkets,
    catalogue.ListMarketsRequest.fromPartial(request),
  );
  return { items: answer.items.map((item) => Buffer.from(item).toString("utf8")), nextCursor: answer.nextCursor };
}

async function whole(harness: CatalogueHarness, request: Partial<catalogue.ListMarketsRequest>): Promise<string[]> {
  const answer = await page(harness, { ...request, limit: 10_000 });
  expect(answer.nextCursor).toBe("");
  return answer.items;
}

async function paged(
  harness: CatalogueHarness,
  request: Partial<catalogue.ListMarketsRequest>,
  limit: number,
): Promise<string[]> {
  const items: string[] = [];
  let cursor = "";
  do {
    const answer = await page(harness, { ...request, limit, cursor });
    items.push(...answer.items);
    cursor = answer.nextCursor;
  } while (cursor);
  return items;
}

describe("markets kept rendered per view", () => {
  let harness: CatalogueHarness;
  /** Starts on the same store with a bound below one market: it keeps nothing and renders every page afresh. */
  const keepingNothing = () =>
    startCatalogue({ uri: `${process.env.TEST_MONGODB_URL}/${harness.mongo.db.databaseName}`, marketViewBytes: 1 });

  beforeEach(async () => {
    harness = await startCatalogue();
    await harness.apply(bigCycle());
  });

  afterEach(async () => {
    await harness.stop();
  });

  test("pages served again, whole or paged, are the kept bytes, and equal what a service keeping nothing renders", async () => {
    const first = await Promise.all(VIEWS.map((view) => whole(harness, view)));
    expect(first[0]!.length).toBeGreaterThan(1_000);
    const rendered = harness.service.reads.marketsRendered;

    for (const [index, view] of VIEWS.entries()) {
      expect(await whole(harness, view)).toEqual(first[index]);
      expect(await paged(harness, view, 331)).toEqual(first[index]);
    }
    expect(harness.service.reads.marketsRendered).toBe(rendered);

    const fresh = await keepingNothing();
    try {
      for (const [index, view] of VIEWS.entries()) {
        expect(await whole(fresh, view)).toEqual(first[index]);
        expect(await paged(fresh, view, 997)).toEqual(first[index]);
      }
    } finally {
      await fresh.stop();
    }
  });

  test("after a catalogue change every view follows it, as a service keeping nothing renders it", async () => {
    const before = await Promise.all(VIEWS.map((view) => whole(harness, view)));
    const changed = bigCycle("tab");
    changed.events![0] = { ...changed.events![0]!, active: false };
    await harness.apply(changed);

    const after = await Promise.all(VIEWS.map((view) => whole(harness, view)));
    expect(after[0]).not.toEqual(before[0]);
    expect(after[6]).not.toEqual(before[6]);
    const fresh = await keepingNothing();
    try {
      for (const [index, view] of VIEWS.entries()) expect(await whole(fresh, view)).toEqual(after[index]);
    } finally {
      await fresh.stop();
    }
  });

  test("concurrent big pages render each market once, and small reads beside them are answered", async () => {
    // Kept, then dropped by a change: the pages below find nothing rendered.
    await whole(harness, { caller: callers.everything });
    await harness.apply(bigCycle("neds"));
    const rendered = harness.service.reads.marketsRendered;
    const small = () =>
      Promise.all([
        harness.list("listTeams", { caller: callers.everything, leagueIds: ["NRL"] }),
        harness.list("listSports", { caller: callers.everything }),
      ]);
    const calls = Array.from({ length: 16 }, (_, index) =>
      index % 4 === 0 ? small() : whole(harness, { caller: callers.everything }),
    );
    const answers = await Promise.all(calls);

    const pages = answers.filter((_, index) => index % 4 !== 0) as string[][];
    for (const body of pages) expect(body).toEqual(pages[0]);
    for (const [teams, sports] of answers.filter((_, index) => index % 4 === 0) as [
      { items: { teamID: string }[] },
      { items: { sportID: string }[] },
    ][]) {
      expect(teams.items.map((team) => team.teamID)).toEqual(["MELBOURNE_STORM_NRL", "PENRITH_PANTHERS_NRL"]);
      expect(sports.items.map((sport) => sport.sportID)).toEqual(["AUSSIE_RULES", "RUGBY_LEAGUE", "SOCCER"]);
    }
    // Twelve pages of one view: every market was rendered once, not once per page.
    expect(harness.service.reads.marketsRendered - rendered).toBe(harness.service.reads.snapshot().markets.size);
  });
});
