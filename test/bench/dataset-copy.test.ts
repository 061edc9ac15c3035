// The benchmark's run copy: a built dataset is copied afresh for each run (what the last run wrote is gone but its
// logs, kept until the run after), and what a run writes beside the stores is not copied; a dataset still being built
// is run on in place.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeScratchFolder, scratchFolder } from "@odds/local";
import { PREVIOUS_RUN_LOGS, RUN_DIR, runDirFor } from "./dataset-copy";

let parent: string;
beforeAll(() => (parent = scratchFolder("odds-bench-copy-")));
afterAll(() => removeScratchFolder(parent));

function dataset(): string {
  const dir = mkdtempSync(join(parent, "dataset-"));
  mkdirSync(join(dir, "ferretdb-history"), { recursive: true });
  writeFileSync(join(dir, "ferretdb-history", "history.sqlite"), "the stores as built");
  writeFileSync(join(dir, "history-depth.json"), "{}");
  mkdirSync(join(dir, "logs"));
  writeFileSync(join(dir, "logs", "ingest.log"), "a run's log");
  writeFileSync(join(dir, "bare-0.json"), "a run's bare body");
  writeFileSync(join(dir, "load-spec.json"), "{}");
  return dir;
}

describe("the benchmark's run copy of its dataset", () => {
  it("runs a dataset still being built in place, copying nothing", async () => {
    const dir = dataset();
    expect(await runDirFor(dir, false, () => {})).toEqual({ dir, copySeconds: null });
    expect(existsSync(join(dir, RUN_DIR))).toBe(false);
  });

  it("copies a built dataset's stores for each run, afresh, without what a run writes beside them", async () => {
    const dir = dataset();
    const { dir: first, copySeconds } = await runDirFor(dir, true, () => {});
    expect(first).toBe(join(dir, RUN_DIR));
    expect(copySeconds).toBeGreaterThanOrEqual(0);
    expect(readdirSync(first).sort()).toEqual(["ferretdb-history", "history-depth.json"]);
    // A run's cycles write to its copy; the next run starts from the dataset as built.
    writeFileSync(join(first, "ferretdb-history", "history.sqlite"), "grown by a run's cycles");
    writeFileSync(join(first, "ferretdb-history", "left-by-a-run"), "");
    const { dir: second } = await runDirFor(dir, true, () => {});
    expect(second).toBe(first);
    expect(readFileSync(join(second, "ferretdb-history", "history.sqlite"), "utf8")).toBe("the stores as built");
    expect(existsSync(join(second, "ferretdb-history", "left-by-a-run"))).toBe(false);
    expect(readFileSync(join(dir, "ferretdb-history", "history.sqlite"), "utf8")).toBe("the stores as built");
  });

  it("keeps the logs of the run before, and only those, out of the next run's copy", async () => {
    const dir = dataset();
    const kept = join(dir, PREVIOUS_RUN_LOGS);
    const runLog = (run: string, text: string) => {
      mkdirSync(join(run, "logs"), { recursive: true });
      writeFileSync(join(run, "logs", "events.log"), text);
    };
    const { dir: run } = await runDirFor(dir, true, () => {});
    expect(existsSync(kept)).toBe(false);
    runLog(run, "the first run's log");
    await runDirFor(dir, true, () => {});
    expect(readdirSync(kept)).toEqual(["events.log"]);
    expect(readFileSync(join(kept, "events.log"), "utf8")).toBe("the first run's log");
    expect(existsSync(join(run, "logs"))).toBe(false);
    runLog(run, "the second run's log");
    await runDirFor(dir, true, () => {});
    expect(readFileSync(join(kept, "events.log"), "utf8")).toBe("the second run's log");
    // A run that stopped before its services wrote anything leaves the logs kept before.
    await runDirFor(dir, true, () => {});
    expect(readFileSync(join(kept, "events.log"), "utf8")).toBe("the second run's log");
    expect(readdirSync(run).sort()).toEqual(["ferretdb-history", "history-depth.json"]);
  });
});
