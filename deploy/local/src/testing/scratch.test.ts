import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { removeScratchFolder, scratchFolder } from "./scratch";

describe("a test's scratch folder", () => {
  const kept = process.env.KEEP_TEST_DATA;
  afterEach(() => {
    if (kept === undefined) delete process.env.KEEP_TEST_DATA;
    else process.env.KEEP_TEST_DATA = kept;
  });

  it("is made fresh under TMPDIR, and removed with what it holds", () => {
    delete process.env.KEEP_TEST_DATA;
    const [one, two] = [scratchFolder("scratch-test-"), scratchFolder("scratch-test-")];
    expect(one).not.toBe(two);
    expect(dirname(one)).toBe(tmpdir());
    writeFileSync(join(one, "store.log"), "a line");
    removeScratchFolder(one);
    removeScratchFolder(two);
    expect([existsSync(one), existsSync(two)]).toEqual([false, false]);
    expect(() => removeScratchFolder(undefined)).not.toThrow();
  });

  it("is kept with KEEP_TEST_DATA=1, for a post-mortem", () => {
    process.env.KEEP_TEST_DATA = "1";
    const dir = scratchFolder("scratch-test-");
    writeFileSync(join(dir, "store.log"), "a line");
    removeScratchFolder(dir);
    expect(existsSync(join(dir, "store.log"))).toBe(true);
    delete process.env.KEEP_TEST_DATA;
    removeScratchFolder(dir);
    expect(existsSync(dir)).toBe(false);
  });
});
