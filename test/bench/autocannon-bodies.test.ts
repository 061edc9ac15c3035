// The load worker's autocannon counts an answer's bytes and keeps none of its body (autocannon-bodies.ts), in a
// process of its own (test/dist/bench/autocannon-bodies.js, as the load worker loads it): the change is to autocannon's
// prototype, shared by everything in a process.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "@odds/local";

const MODULE = join(REPO_ROOT, "test", "dist", "bench", "autocannon-bodies.js");

const probe = `
  const { autocannonBodyQueue, discardAnswerBodies } = require(${JSON.stringify(MODULE)});
  const Queue = autocannonBodyQueue();
  const keep = (queue) => {
    queue.insertRequest({ path: "/" });
    queue.addByteCount(7);
    queue.addBody(Buffer.from([0x1f, 0x8b, 0x08]));
    queue.addBody(Buffer.from("{}"));
    const { body, bytes } = queue.terminateRequest();
    return { length: body.length, bytes };
  };
  const before = keep(new Queue());
  discardAnswerBodies();
  process.stdout.write(JSON.stringify({ before, after: keep(new Queue()) }));
`;

test("autocannon keeps a body's chunks as a string until the load worker turns that off; bytes are counted either way", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", probe]);
  const { before, after } = JSON.parse(stdout) as Record<"before" | "after", { length: number; bytes: number }>;

  // 0x8b is no UTF-8: the string autocannon keeps holds a replacement character for it.
  expect(before).toEqual({ length: 5, bytes: 7 });
  expect(after).toEqual({ length: 0, bytes: 7 });
});
