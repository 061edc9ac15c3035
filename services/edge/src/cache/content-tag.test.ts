import { randomBytes } from "node:crypto";
import { Answer } from "./answer";
import { contentTag, framedItemsTag, loadContentTags } from "./content-tag";

describe("content tags (answers' ETags)", () => {
  test("an answer made before the tags are loaded fails rather than go without an ETag", () => {
    expect(() => new Answer(Buffer.from("{}"), 0)).toThrow(/content tags are not loaded/);
  });

  describe("loaded", () => {
    beforeAll(loadContentTags);

    test("are XXH3's 128-bit hash of the bytes, base64url", () => {
      // XXH3_128bits("abc"), seed 0, as an independent native implementation (the xxhash-rust crate) gives it.
      expect(Buffer.from(contentTag(Buffer.from("abc")), "base64url").toString("hex")).toBe(
        "06b05ab6733a618578af5f94892f3950",
      );
      expect(contentTag(Buffer.alloc(0))).toMatch(/^[A-Za-z0-9_-]{22}$/);
    });

    test("the same bytes get the same tag, however they are held; a byte changed anywhere changes it", () => {
      const page = randomBytes(3 << 20); // larger than the hash's working memory, so it is fed in pieces
      const tag = contentTag(page);
      const copy = Buffer.concat([Buffer.alloc(7), page]).subarray(7);
      expect(contentTag(copy)).toBe(tag);
      for (const at of [0, 1 << 16, page.length - 1]) {
        const changed = Buffer.from(page);
        changed[at] ^= 1;
        expect(contentTag(changed)).not.toBe(tag);
      }
      // One hasher serves every answer: a tag made between two others leaves them as they were.
      expect(contentTag(Buffer.from("x"))).not.toBe(tag);
      expect(contentTag(page)).toBe(tag);
    });

    test("bytes given in parts get the tag of the parts joined, wherever they are cut", () => {
      const page = randomBytes(1 << 20);
      const tag = contentTag(page);
      for (const cuts of [[0], [1], [5_000, 5_001, 700_000], [page.length - 1, page.length]]) {
        const parts = [0, ...cuts, page.length]
          .slice(1)
          .map((end, index, ends) => page.subarray(ends[index - 1] ?? 0, end));
        expect(Buffer.concat(parts).equals(page)).toBe(true);
        expect(contentTag(parts)).toBe(tag);
      }
      expect(contentTag([page.subarray(0, 10), page.subarray(11)])).not.toBe(tag);
    });

    test("a frame and its items' tags get one tag; any tag, its place, or a byte of the frame changed changes it", () => {
      const head = Buffer.from('{"data":[');
      const tail = Buffer.from('],"nextCursor":null}');
      const tags = ["e1@7f", "e2@7f", "e3@7f"];
      const tag = framedItemsTag(head, tags, tail);
      expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(framedItemsTag(Buffer.from(head), [...tags], Buffer.from(tail))).toBe(tag);
      for (const other of [
        framedItemsTag(head, ["e1@7f", "e2@80", "e3@7f"], tail),
        framedItemsTag(head, ["e2@7f", "e1@7f", "e3@7f"], tail),
        framedItemsTag(head, tags.slice(0, 2), tail),
        framedItemsTag(head, ["e1@7f", "e2@7fe3@7f"], tail),
        framedItemsTag(Buffer.from('{"data":[ '), tags, tail),
        framedItemsTag(head, tags, Buffer.from('],"nextCursor":"x"}')),
        // A byte moved from the head to the tail: the same bytes in a row, another frame.
        framedItemsTag(head.subarray(0, -1), tags, Buffer.concat([head.subarray(-1), tail])),
      ])
        expect(other).not.toBe(tag);
      // Never the tag of bytes (no answer's bytes begin as its input does).
      expect(contentTag(Buffer.concat([head, tail]))).not.toBe(tag);
    });

    test("an answer's ETag per representation is quoted, and each encoding has its own", () => {
      const answer = new Answer(Buffer.from('{"data":[]}'), 0);
      expect(answer.etagOf("identity")).toBe(`"${contentTag(Buffer.from('{"data":[]}'))}"`);
      expect(answer.etagOf("gzip")).toBe(`"${answer.etag}-gzip"`);
      expect(answer.etagOf("br")).toBe(`"${answer.etag}-br"`);
    });
  });
});
