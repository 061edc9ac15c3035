import { decodeJsonPage, encodeJsonPage } from "@odds/platform";
import { common } from "@odds/proto";
import { renderPage } from "./envelope";

/** A page of `count` events of about `size` bytes each, as the events service sends it. */
function receivedPage(count: number, size: number, page: Partial<common.JsonPage> = {}) {
  const objects = Array.from({ length: count }, (_, index) => ({ eventID: `ev-${index}`, pad: "x".repeat(size) }));
  const items = objects.map((object) => Buffer.from(JSON.stringify(object)));
  const bytes = encodeJsonPage(common.JsonPage.create({ ...page, items }));
  return { objects, bytes, decoded: decodeJsonPage(bytes) };
}

describe("renderPage", () => {
  it("frames a large received page where it arrived, cursor and notice included", () => {
    const { objects, bytes, decoded } = receivedPage(50, 3_000);
    const body = renderPage({ items: decoded.items, nextCursor: "c".repeat(300), notice: 'a "partial" page' });
    expect(JSON.parse(body.toString())).toEqual({
      success: true,
      data: objects,
      nextCursor: "c".repeat(300),
      notice: 'a "partial" page',
    });
    // The answer is a view of the received message, not a copy of it.
    expect(body.buffer === bytes.buffer).toBe(true);
  });

  it("renders a page framed before as a copy of the same bytes, and leaves the first as it was", () => {
    const { decoded } = receivedPage(20, 5_000);
    const first = renderPage({ items: decoded.items, nextCursor: "next" });
    const firstBytes = Buffer.from(first);
    const second = renderPage({ items: decoded.items, nextCursor: null });
    expect(first.equals(firstBytes)).toBe(true);
    expect(JSON.parse(second.toString()).nextCursor).toBeNull();
    expect(JSON.parse(second.toString()).data).toEqual(JSON.parse(first.toString()).data);
  });
});
