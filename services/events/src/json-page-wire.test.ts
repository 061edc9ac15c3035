import { common } from "@odds/proto";
import { encodeJsonPage } from "./json-page-wire";

describe("encodeJsonPage", () => {
  it("produces bytes the generated JsonPage decoder reads back unchanged, for small and multi-byte lengths", () => {
    const page = common.JsonPage.create({
      items: [Buffer.from("{}"), Buffer.alloc(300_000, "x"), Buffer.from('{"eventID":"é"}')],
      nextCursor: "eyJ2IjoxfQ",
      notice: "partial",
      objects: 300,
    });
    const decoded = common.JsonPage.decode(encodeJsonPage(page));
    expect(decoded.items.map((item) => Buffer.from(item).toString("utf8"))).toEqual(
      page.items.map((item) => Buffer.from(item).toString("utf8")),
    );
    expect([decoded.nextCursor, decoded.notice, decoded.objects]).toEqual(["eyJ2IjoxfQ", "partial", 300]);
  });

  it("carries a page's tag, and an unchanged page as its tag and mark alone", () => {
    const tagged = common.JsonPage.create({ items: [Buffer.from("{}")], tag: "t-1" });
    const decoded = common.JsonPage.decode(encodeJsonPage(tagged));
    expect([decoded.tag, decoded.unchanged ?? false]).toEqual(["t-1", false]);
    const unchanged = common.JsonPage.create({ nextCursor: "c", tag: "t-1", unchanged: true });
    expect(common.JsonPage.decode(encodeJsonPage(unchanged))).toEqual(unchanged);
  });

  it("encodes an empty last page as an empty message", () => {
    expect(encodeJsonPage(common.JsonPage.create()).length).toBe(0);
  });
});
