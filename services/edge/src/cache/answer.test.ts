import { gzipSync } from "node:zlib";
import { heldBytes } from "@odds/platform";
import { ANSWER_OVERHEAD_BYTES, Answer } from "./answer";
import { loadContentTags } from "./content-tag";

beforeAll(loadContentTags);

/** A JSON page of `bytes` bytes or a little more, made as `Buffer.from` makes it (under 4 KB: cut from the pool slab). */
function pageOf(bytes: number): Buffer {
  const items: string[] = [];
  for (let length = 0; length < bytes; length += items.at(-1)!.length + 1) {
    items.push(JSON.stringify({ teamID: `TEAM_${items.length}_AFL` }));
  }
  return Buffer.from(`{"success":true,"data":[${items.join(",")}],"nextCursor":null}`);
}

/** Every block of memory an answer's buffers keep alive. */
async function heldBlocks(answer: Answer): Promise<number> {
  const buffers = [...answer.parts, await answer.bytes("gzip"), await answer.bytes("br")];
  return buffers.reduce((sum, bytes) => sum + heldBytes(bytes), 0);
}

describe("Answer", () => {
  test("a small answer and its encodings hold blocks of their own, not the slab or zlib chunk they were cut from", async () => {
    const body = pageOf(1500);
    expect(body.buffer.byteLength).toBeGreaterThan(2 * body.length); // Node's 8 KB pool slab
    const answer = new Answer(body, 1);
    const [kept] = answer.parts;
    expect(answer.parts).toHaveLength(1);
    expect(kept!.equals(body)).toBe(true);
    expect(kept!.buffer.byteLength).toBe(kept!.length);
    for (const encoding of ["gzip", "br"] as const) {
      const bytes = await answer.bytes(encoding);
      expect(bytes.buffer.byteLength).toBe(bytes.length);
    }
    expect((await answer.bytes("gzip")).equals(gzipSync(body, { level: 6 }))).toBe(true);
  });

  test("a page that fills most of the message it was framed in stays a view of it, uncopied", () => {
    const message = Buffer.allocUnsafeSlow(200_000);
    const page = pageOf(190_000).copy(message, 1_000);
    const framed = Buffer.from(message.buffer, 1_000, page);
    const answer = new Answer(framed, 1);
    expect(answer.parts[0]!.buffer).toBe(message.buffer);
    expect(answer.size).toBeGreaterThanOrEqual(message.length);
  });

  test("its size covers every block its buffers hold and its objects, before and after its encodings are made", async () => {
    for (const bytes of [200, 1500, 20_000, 300_000]) {
      const answer = new Answer(pageOf(bytes), 1);
      const before = answer.size;
      expect(before).toBeGreaterThanOrEqual(ANSWER_OVERHEAD_BYTES + answer.length);
      const held = await heldBlocks(answer);
      // Made, each encoding counts as what it holds; too small to compress, the answer has none to count.
      const encodings = answer.compressible() ? held - answer.length : 0;
      expect(answer.size).toBe(ANSWER_OVERHEAD_BYTES + answer.length + encodings);
    }
  });

  test("tells its listener each time an encoding is made, and only then", async () => {
    const answer = new Answer(pageOf(5_000), 1);
    const sizes: number[] = [];
    answer.onEncoded(() => sizes.push(answer.size));
    await answer.bytes("gzip");
    await answer.bytes("gzip");
    await answer.bytes("br");
    expect(sizes).toHaveLength(2);
    expect(sizes.at(-1)).toBe(answer.size);
  });
});
