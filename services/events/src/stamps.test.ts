import { eventProto, NOW } from "../test/fixtures";
import { renderEvent, type ContractEvent } from "./render";
import { createHash } from "node:crypto";
import { contentHashOf, newerStamps, restampJson, stampLayoutOf, stampsOf, stampsOfEvent } from "./stamps";

const iso = (ms: number) => new Date(ms).toISOString();
const event = renderEvent(eventProto({ eventId: "AFL_STAMPS", lastUpdatedAtMs: NOW }));
const json = Buffer.from(JSON.stringify(event));

describe("observation stamps", () => {
  it("reads info.lastUpdatedAt and each bookmaker's newest price time, alternate lines included", () => {
    const stamps = stampsOf(event);
    expect(stamps.lastUpdatedAtMs).toBe(NOW);
    expect([...stamps.bookmakers.keys()].sort()).toEqual(["neds", "pinnacle", "sportsbet", "tab"]);
  });

  it("reads the same stamps from the message as from its rendering", () => {
    const message = eventProto({ eventId: "AFL_STAMPS", lastUpdatedAtMs: NOW });
    const [first] = Object.values(message.odds);
    const [tab] = Object.values(first!.byBookmaker);
    tab!.lastUpdatedAtMs = NOW + 5_000;
    expect(stampsOfEvent(message)).toEqual(stampsOf(renderEvent(message)));
    expect(stampsOfEvent(message).bookmakers.get(tab!.bookmakerId)).toBe(NOW + 5_000);
  });

  it("writes new stamps into the bytes exactly as a fresh rendering with those times would carry them", () => {
    const later = { lastUpdatedAtMs: NOW + 120_000, bookmakers: new Map([["tab", NOW + 60_000]]) };
    const restamped = JSON.parse(restampJson(json, later).toString("utf8")) as ContractEvent;
    const expected = JSON.parse(JSON.stringify(event)) as ContractEvent;
    expected.info.lastUpdatedAt = iso(NOW + 120_000);
    for (const side of Object.values(expected.odds)) {
      const prices = [side.byBookmaker, ...Object.values(side.altLines ?? {}).map((line) => line.byBookmaker)];
      for (const byBookmaker of prices) if (byBookmaker.tab) byBookmaker.tab.lastUpdatedAt = iso(NOW + 60_000);
    }
    expect(restamped).toEqual(expected);
    // A copy unless asked otherwise: the bytes served so far stay as they were.
    expect(JSON.parse(json.toString("utf8"))).toEqual(event);
  });

  it("writes stamps at the offsets a layout found before, which restamped bytes keep", () => {
    const layout = stampLayoutOf(json);
    expect(layout.info).toBeDefined();
    expect([...layout.bookmakers.keys()].sort()).toEqual(["neds", "pinnacle", "sportsbet", "tab"]);
    const first = {
      lastUpdatedAtMs: NOW + 60_000,
      bookmakers: new Map([
        ["tab", NOW + 60_000],
        ["neds", NOW + 30_000],
      ]),
    };
    const second = { lastUpdatedAtMs: NOW + 120_000, bookmakers: new Map([["tab", NOW + 90_000]]) };
    const bytes = Buffer.from(json);
    restampJson(bytes, first, { inPlace: true, layout });
    expect(bytes).toEqual(restampJson(json, first));
    expect(stampLayoutOf(bytes)).toEqual(layout);
    restampJson(bytes, second, { inPlace: true, layout });
    const served = JSON.parse(bytes.toString("utf8")) as ContractEvent;
    expect(served.info.lastUpdatedAt).toBe(iso(NOW + 120_000));
    const timesOf = (rendered: ContractEvent, bookmakerID: string) =>
      new Set(
        Object.values(rendered.odds)
          .flatMap((side) => [side.byBookmaker, ...Object.values(side.altLines ?? {}).map((line) => line.byBookmaker)])
          .flatMap((byBookmaker) => Object.values(byBookmaker))
          .filter((price) => price.bookmakerID === bookmakerID)
          .map((price) => price.lastUpdatedAt),
      );
    expect(timesOf(served, "tab")).toEqual(new Set([iso(NOW + 90_000)]));
    expect(timesOf(served, "neds")).toEqual(new Set([iso(NOW + 30_000)]));
    // A bookmaker neither stamps named keeps what the rendering carried.
    expect(timesOf(event, "sportsbet").size).toBeGreaterThan(0);
    expect(timesOf(served, "sportsbet")).toEqual(timesOf(event, "sportsbet"));
  });

  it("blanks every stamp for the content hash, so equal content at other times hashes alike", () => {
    const later = renderEvent(eventProto({ eventId: "AFL_STAMPS", lastUpdatedAtMs: NOW + 3_600_000 }));
    const laterJson = restampJson(Buffer.from(JSON.stringify(later)), {
      lastUpdatedAtMs: NOW + 3_600_000,
      bookmakers: new Map([["sportsbet", NOW + 3_600_000]]),
    });
    expect(restampJson(laterJson, null)).toEqual(restampJson(json, null));
    expect(restampJson(json, null).includes(iso(NOW))).toBe(false);
  });

  it("hashes the content as the stamp-free bytes hash, without copying them, in either member order", () => {
    // Hashes already stored were taken of restampJson(json, null): the same bytes must hash alike.
    const storedForm = (bytes: Buffer) => createHash("sha256").update(restampJson(bytes, null)).digest("base64url");
    const { info, ...rest } = event;
    const infoLast = Buffer.from(JSON.stringify({ ...rest, info }));
    for (const bytes of [json, infoLast]) expect(contentHashOf(bytes)).toBe(storedForm(bytes));
    const later = restampJson(json, { lastUpdatedAtMs: NOW + 60_000, bookmakers: new Map([["tab", NOW + 60_000]]) });
    expect(contentHashOf(later)).toBe(contentHashOf(json));
    const repriced = JSON.parse(JSON.stringify(event)) as ContractEvent;
    const price = Object.values(Object.values(repriced.odds)[0]!.byBookmaker)[0]!;
    price.odds = price.odds === "+150" ? "+155" : "+150";
    expect(contentHashOf(Buffer.from(JSON.stringify(repriced)))).not.toBe(contentHashOf(json));
    // Hashing reads the bytes only.
    expect(JSON.parse(json.toString("utf8"))).toEqual(event);
    // A smaller event after a larger one: hashed from its own bytes alone, none left over from the larger.
    const smaller = Buffer.from(JSON.stringify({ ...event, odds: {} }));
    expect(contentHashOf(smaller)).toBe(storedForm(smaller));
    expect(contentHashOf(json)).toBe(storedForm(json));
  });

  it("never moves a stamp back, and names no bookmaker the content lacks", () => {
    const held = stampsOf(event);
    expect(newerStamps(held, { lastUpdatedAtMs: NOW - 1, bookmakers: new Map([["tab", 0]]) })).toBeUndefined();
    const moved = newerStamps(held, {
      lastUpdatedAtMs: NOW,
      bookmakers: new Map([
        ["tab", NOW + 5],
        ["unknown_book", NOW + 5],
      ]),
    });
    expect(moved?.bookmakers.get("tab")).toBe(NOW + 5);
    expect(moved?.bookmakers.has("unknown_book")).toBe(false);
  });
});
