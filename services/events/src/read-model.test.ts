import { v1 } from "@odds/proto";
import { eventProto, eventQuery, HOUR, NOW } from "../test/fixtures";
import { FULL_SHAPE, type PlanScope } from "./query";
import { EventReadModel, preparedEvent } from "./read-model";
import { renderEvent, type ContractEvent } from "./render";
import { restampJson } from "./stamps";

const ALL: PlanScope = { sportIDs: null, leagueIDs: null, bookmakerIDs: null, fairOdds: true };
const state = (version: number) => ({ version, cycleId: `c${version}`, lastCycleAtMs: NOW, observedAtMs: NOW });

function prepared(eventId: string, startsAtMs: number, playerId: string) {
  return preparedEvent(renderEvent(eventProto({ eventId, startsAtMs, playerId })), `hash-${eventId}-${playerId}`);
}

describe("EventReadModel.apply, per event", () => {
  it("keeps serving order and the v1 lookups right as events are replaced, one call at a time", async () => {
    const model = new EventReadModel();
    model.apply(
      [
        prepared("A", NOW + 3 * HOUR, "P_SHARED"),
        prepared("B", NOW + 1 * HOUR, "P_SHARED"),
        prepared("C", NOW + 2 * HOUR, "P_C"),
      ],
      state(1),
    );
    const order = () =>
      model
        .list(eventQuery(), ALL, { limit: 10, cursor: "" }, NOW)
        .items.map((json) => (JSON.parse(json.toString("utf8")) as { eventID: string }).eventID);
    const player = (id: string) => model.resolveV1("players", [v1.v1Id("player", id)])[0];
    expect(order()).toEqual(["B", "C", "A"]);
    expect([player("P_SHARED"), player("P_C")]).toEqual(["P_SHARED", "P_C"]);

    // B moves after A and drops the shared player: A still has them.
    model.apply([prepared("B", NOW + 4 * HOUR, "P_B")], state(2));
    expect(order()).toEqual(["C", "A", "B"]);
    expect([player("P_SHARED"), player("P_B")]).toEqual(["P_SHARED", "P_B"]);
    expect(model.resolveV1("events", [v1.v1Id("event", "B")])).toEqual(["B"]);

    // The last event with the player drops them: their pl_ id names nothing any more.
    model.apply([prepared("A", NOW + 3 * HOUR, "P_A")], state(3));
    expect(player("P_SHARED")).toBe(v1.unresolvedV1Id(v1.v1Id("player", "P_SHARED")));
    expect(order()).toEqual(["C", "A", "B"]);
    expect(model.size).toBe(3);
  });
});

describe("EventReadModel.list, page tags", () => {
  it("changes a page's tag and its item's when an event on it turns stale with time, as its bytes do; a restamped event too", () => {
    const model = new EventReadModel();
    // Last written a minute before NOW: stale 45 minutes after that write.
    const event = prepared("A", NOW + HOUR, "P_A");
    model.apply([event], state(1));
    const at = (nowMs: number) => model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, nowMs);
    const fresh = at(NOW);
    expect(at(NOW + 30 * 60_000).tag).toBe(fresh.tag);
    const stale = at(NOW + 45 * 60_000);
    expect(stale.tag).not.toBe(fresh.tag);
    expect(stale.items[0]!.equals(fresh.items[0]!)).toBe(false);
    expect(stale.itemTags[0]).not.toBe(fresh.itemTags[0]);
    // A caller holding the fresh item is sent the stale one whole; holding the stale one, it is sent nothing.
    const held = (itemTags: string[]) =>
      model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, NOW + 45 * 60_000, { tag: fresh.tag, itemTags }).items;
    expect(held(fresh.itemTags)).toEqual(stale.items);
    expect(held(stale.itemTags)).toEqual([Buffer.alloc(0)]);
    expect(at(NOW + 46 * 60_000)).toEqual({ ...stale, items: [...stale.items] });
    expect(model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, NOW, { tag: fresh.tag })).toEqual({
      ...fresh,
      items: [],
      itemTags: [],
      unchanged: true,
    });

    // The same event with a bookmaker observed later shares its renderings, not its tag.
    const later = event.restamped({ lastUpdatedAtMs: NOW, bookmakers: new Map([["sportsbet", NOW]]) });
    model.apply([later], state(2));
    expect(at(NOW).tag).not.toBe(fresh.tag);
    expect(at(NOW).itemTags[0]).not.toBe(fresh.itemTags[0]);
  });

  it("tags an item by the shape too: one held in the shape of another replica's settings is sent whole", () => {
    const replica = (fairOddsBookmakers: string[]) => {
      const model = new EventReadModel({ fairOddsBookmakers });
      model.apply([prepared("A", NOW + HOUR, "P_A"), prepared("B", NOW + 2 * HOUR, "P_B")], state(1));
      return (held = {}) => model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, NOW, held);
    };
    const current = replica(["betfair_ex_au"]);
    const other = replica(["pinnacle"]);
    const held = other();
    expect(current().itemTags).not.toEqual(held.itemTags);
    // Named under the same request, the other shape's items are no item this replica sends empty.
    expect(current({ tag: held.tag, itemTags: held.itemTags }).items).toEqual(current().items);
    expect(current({ itemTags: current().itemTags }).items).toEqual([Buffer.alloc(0), Buffer.alloc(0)]);
  });
});

describe("PreparedEvent, restamped copies", () => {
  it("serves each copy's own stamps from the packed renderings they share", () => {
    const event = prepared("A", NOW + HOUR, "P_A");
    // The first unpacking finds where the stamps sit; the copy's writes its stamps at those offsets.
    const first = event.json(FULL_SHAPE, NOW);
    const firstBytes = Buffer.from(first);
    const later = event.restamped({
      lastUpdatedAtMs: NOW + 60_000,
      bookmakers: new Map([["sportsbet", NOW + 60_000]]),
    });
    const restamped = later.json(FULL_SHAPE, NOW);
    expect(restamped).toEqual(restampJson(first, later.stamps));
    const served = JSON.parse(restamped.toString("utf8")) as ContractEvent;
    const iso = new Date(NOW + 60_000).toISOString();
    expect(served.info.lastUpdatedAt).toBe(iso);
    const prices = Object.values(served.odds).flatMap((side) => Object.values(side.byBookmaker));
    expect(prices.filter((price) => price.lastUpdatedAt === iso).length).toBe(
      prices.filter((price) => price.bookmakerID === "sportsbet").length,
    );
    expect(prices.some((price) => price.bookmakerID === "sportsbet")).toBe(true);
    // The original's bytes stay as they were served.
    expect(event.json(FULL_SHAPE, NOW)).toEqual(firstBytes);
    expect(first).toEqual(firstBytes);
  });
});

describe("EventReadModel.list, the code's release", () => {
  it("names it in the page's tag and its items': replicas of one release agree, another release confirms neither", () => {
    const replica = (release: string) => {
      const model = new EventReadModel({ release });
      model.apply([prepared("A", NOW + HOUR, "P_A"), prepared("B", NOW + 2 * HOUR, "P_B")], state(1));
      return model;
    };
    const page = (model: EventReadModel, held = {}) =>
      model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, NOW, held);
    const held = page(replica("release-1"));
    expect(page(replica("release-1")).tag).toBe(held.tag);
    expect(page(replica("release-1"), { tag: held.tag }).unchanged).toBe(true);

    const next = replica("release-2");
    const renewed = page(next, { tag: held.tag, itemTags: held.itemTags });
    // Every item sent whole: none is taken for one the caller holds from the other release.
    expect(renewed.unchanged).toBe(false);
    expect(renewed.tag).not.toBe(held.tag);
    expect(renewed.itemTags.filter((tag) => held.itemTags.includes(tag))).toEqual([]);
    expect(renewed.items.map((item) => item.toString("utf8"))).toEqual(held.items.map((item) => item.toString("utf8")));
  });
});

describe("EventReadModel.list, stale events", () => {
  it("serves an event turned stale with info.stale true and every other byte as served fresh", () => {
    const proto = eventProto({ eventId: "A", startsAtMs: NOW + HOUR, playerId: "P_A" });
    // Characters of two to four bytes in UTF-8 before and inside info: the marker is found in bytes, not characters.
    proto.info!.displayName = "Géelong Cats v Melbourne Demons — MCG 🏉";
    proto.home!.names!.long = "Ñorth Melbourne Kangaroos";
    const model = new EventReadModel();
    model.apply([preparedEvent(renderEvent(proto), "hash-A")], state(1));
    const served = (nowMs: number) => model.list(eventQuery(), ALL, { limit: 10, cursor: "" }, nowMs).items[0]!;
    const fresh = served(NOW);
    const freshBytes = Buffer.from(fresh);
    const stale = served(NOW + 45 * 60_000);
    // Marked in bytes unpacked for it: the fresh bytes served before, and kept, are left as they were.
    expect(fresh).toEqual(freshBytes);
    expect(served(NOW)).toEqual(freshBytes);
    const freshEvent = JSON.parse(fresh.toString("utf8")) as { info: { stale: boolean; displayName: string } };
    expect(freshEvent.info).toMatchObject({ stale: false, displayName: "Géelong Cats v Melbourne Demons — MCG 🏉" });
    expect(JSON.parse(stale.toString("utf8"))).toEqual({ ...freshEvent, info: { ...freshEvent.info, stale: true } });
    expect(stale.toString("utf8")).toBe(fresh.toString("utf8").replace('"stale":false', '"stale":true'));
  });
});
