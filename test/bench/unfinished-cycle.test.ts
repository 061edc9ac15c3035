// A cycle still running as a run ends: the benchmark finds it in ingest's log, so the cases after its start count as
// run beside a cycle even though no "cycle done" line says so.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeScratchFolder, scratchFolder } from "@odds/local";
import { unfinishedCycle } from "./ingest";

const line = (msg: string, cycleID: string, time: string) =>
  JSON.stringify({ level: "info", time, service: "ingest", cycleID, msg });

describe("unfinishedCycle", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = scratchFolder("odds-bench-cycles-");
    mkdirSync(join(dataDir, "logs"));
  });
  afterEach(() => removeScratchFolder(dataDir));
  const log = (...lines: string[]) => writeFileSync(join(dataDir, "logs", "ingest.log"), `${lines.join("\n")}\n`);

  it("names the cycle started and not yet done, with its start", () => {
    log(
      line("cycle started", "cycle-a", "2026-11-28T00:00:00.000Z"),
      line("cycle done", "cycle-a", "2026-11-28T00:01:00.000Z"),
      line("cycle started", "cycle-b", "2026-11-28T00:02:00.000Z"),
      '{"level":"info","time":"2026-11-28T00:02:30.000Z","msg":"cycle app', // cut short
    );
    expect(unfinishedCycle(dataDir, 0)).toEqual({
      cycleID: "cycle-b",
      startedAtMs: Date.parse("2026-11-28T00:02:00.000Z"),
    });
  });

  it("is undefined once every started cycle is done, before the run, or without a log", () => {
    expect(unfinishedCycle(dataDir, 0)).toBeUndefined();
    log(
      line("cycle started", "cycle-a", "2026-11-28T00:00:00.000Z"),
      line("cycle done", "cycle-a", "2026-11-28T00:01:00.000Z"),
    );
    expect(unfinishedCycle(dataDir, 0)).toBeUndefined();
    log(line("cycle started", "cycle-a", "2026-11-28T00:00:00.000Z"));
    expect(unfinishedCycle(dataDir, Date.parse("2026-11-28T00:00:01.000Z"))).toBeUndefined();
  });
});
