import { randomBytes } from "node:crypto";
import { Answer } from "./answer";
import { contentTag, loadContentTags } from "./content-tag";

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

    test("an answer's ETag per representation is quoted, and each encoding has its own", () => {
      const answer = new Answer(Buffer.from('{"data":[]}'), 0);
      expect(answer.etagOf("identity")).toBe(`"${contentTag(Buffer.from('{"data":[]}'))}"`);
      expect(answer.etagOf("gzip")).toBe(`"${answer.etag}-gzip"`);
      expect(answer.etagOf("br")).toBe(`"${answer.etag}-br"`);
    });
  });
});
