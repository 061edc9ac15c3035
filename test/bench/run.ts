// `npm run bench`: performance runs kept out of the test suites (no timing assertions there).
// Each benchmark module exports one runner; add yours to BENCHMARKS.
import { runApiBench } from "./api";
import { runEventsBench } from "./events";

const BENCHMARKS: [string, (report: (line: string) => void) => Promise<void>][] = [
  ["api", runApiBench],
  ["events", runEventsBench],
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  for (const [name, run] of BENCHMARKS) {
    if (only.length > 0 && !only.includes(name)) continue;
    await run((line) => process.stdout.write(`${line}\n`));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
