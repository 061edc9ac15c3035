// `npm run bench`: performance runs kept out of the test suites (no timing assertions there).
// Each benchmark module exports one runner; add yours to BENCHMARKS.
import { Interruption } from "@odds/local";
import { runApiBench, serveBench } from "./api";
import { runEventsBench } from "./events";

type Benchmark = (report: (line: string) => void, interruption: Interruption) => Promise<void>;

const BENCHMARKS: [string, Benchmark][] = [
  ["api", runApiBench],
  ["events", runEventsBench],
];
/** Run only when named: `serve` leaves the benchmark's stack serving until Ctrl-C. */
const NAMED_ONLY: [string, Benchmark][] = [["serve", serveBench]];

// Ctrl-C or SIGTERM at any point (dataset build, stack start, cases) stops every process the bench started.
const interruption = new Interruption();
interruption.listen((message) => process.stdout.write(`${message}\n`));

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const all = [...BENCHMARKS, ...NAMED_ONLY];
  const known = all.map(([name]) => name);
  const unknown = only.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(", ")} (known: ${known.join(", ")})`);
  for (const [name, run] of all) {
    if (only.length > 0 ? !only.includes(name) : NAMED_ONLY.some(([named]) => named === name)) continue;
    await run((line) => process.stdout.write(`${line}\n`), interruption);
  }
}

main().catch((err: unknown) => {
  // Interrupted: the interruption stops what was started and exits with the signal's code.
  if (interruption.signal.aborted) return;
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
