// The benchmark's stack runs on a copy of its dataset, made afresh for each run.
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { cp } from "node:fs/promises";
import { join } from "node:path";

export const RUN_DIR = "run";

/**
 * The logs of the run before, kept beside the dataset when the next run makes its copy: a figure found odd after the
 * fact (one late sighting, a slow window) can still be read against what the services logged, until the run after.
 */
export const PREVIOUS_RUN_LOGS = "previous-run-logs";

/** What a run's copy of the dataset leaves out: its own folder, and what a run writes beside the stores. */
function copied(name: string): boolean {
  return (
    name !== RUN_DIR &&
    name !== PREVIOUS_RUN_LOGS &&
    name !== "logs" &&
    name !== "load-spec.json" &&
    !name.startsWith("bare-")
  );
}

/**
 * Where the stack runs, and how long its copy took (null where none was made): a fresh copy of the dataset once it is `built` (the bench: its history depth written), so every run
 * starts from the same stores. Each run's cycles add events and ticks to the stores it runs on, and a dataset
 * that grew run after run made each run's stores, and its figures, drift from the last. The run that builds the
 * dataset (and writes the depth) runs on the dataset's own folder; what that run leaves is what later runs copy.
 */
export async function runDirFor(
  datasetDir: string,
  built: boolean,
  report: (line: string) => void,
): Promise<{ dir: string; copySeconds: number | null }> {
  if (!built) return { dir: datasetDir, copySeconds: null };
  const runDir = join(datasetDir, RUN_DIR);
  keepLogsOf(runDir, join(datasetDir, PREVIOUS_RUN_LOGS));
  rmSync(runDir, { recursive: true, force: true });
  const startedAt = Date.now();
  report(`  copying the dataset to ${runDir}: this run's cycles write to the copy`);
  for (const name of readdirSync(datasetDir).filter(copied))
    await cp(join(datasetDir, name), join(runDir, name), { recursive: true });
  const copySeconds = (Date.now() - startedAt) / 1000;
  report(`  copied in ${copySeconds.toFixed(0)} s`);
  return { dir: runDir, copySeconds };
}

/** Moves the last run's logs to `kept`, in place of the ones kept before (a run that left none keeps those). */
function keepLogsOf(runDir: string, kept: string): void {
  const logs = join(runDir, "logs");
  if (!existsSync(logs)) return;
  rmSync(kept, { recursive: true, force: true });
  renameSync(logs, kept);
}
