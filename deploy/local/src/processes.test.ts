import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logTail, waitUntil } from "./processes";

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "processes-test-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("logTail: what a failure message carries of a log", () => {
  it("gives the last lines of a log larger than what it reads", () => {
    const file = join(dir, "long.log");
    // 2,000 lines of about 40 bytes: 80 KB, more than the 16 KB read from the end.
    writeFileSync(file, Array.from({ length: 2_000 }, (_, i) => `line ${i} ${"x".repeat(30)}`).join("\n") + "\n");
    const tail = logTail(file, 3).split("\n");
    expect(tail).toEqual([1997, 1998, 1999].map((i) => `line ${i} ${"x".repeat(30)}`));
  });

  it("says why a log cannot be read instead of failing", () => {
    expect(logTail(join(dir, "absent.log"))).toMatch(/^\(not readable: ENOENT/);
  });
});

describe("waitUntil: a probe that never passes", () => {
  it("fails with the last error and the last lines of every log named", async () => {
    const [a, b] = [join(dir, "a.log"), join(dir, "b.log")];
    writeFileSync(a, "started\nbatch 3 not acknowledged\n");
    writeFileSync(b, "store resumed\n");
    const failing = waitUntil("count", () => Promise.reject(new Error("counted 6")), {
      timeoutMs: 100,
      intervalMs: 20,
      logFile: [a, b],
    });
    await expect(failing).rejects.toThrow(
      `count not ready after 100 ms: Error: counted 6\n` +
        `--- last lines of ${a} ---\nstarted\nbatch 3 not acknowledged\n` +
        `--- last lines of ${b} ---\nstore resumed`,
    );
  });
});
