import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A fresh folder of a test's own under `TMPDIR` (which `npm test` points at its run's folder, removed when the run ends:
 * deploy/local/scratch-run.sh).
 */
export function scratchFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Removes a test's scratch folder once the test is done with it, so that a run outside `npm test` (a direct `npx jest`)
 * leaves nothing behind either. KEEP_TEST_DATA=1 keeps it, with the logs in it, for a post-mortem.
 */
export function removeScratchFolder(dir: string | undefined): void {
  if (dir && !process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
}
