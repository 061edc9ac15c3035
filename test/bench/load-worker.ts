// One load run (its spec read from the file named by argv[2]) in its own process (so the load generator never shares a core's event loop with
// what it measures): autocannon against one base URL, cycling through the given paths.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { discardAnswerBodies } from "./autocannon-bodies";

export interface LoadSpec {
  origin: string;
  /** Request paths, used in turn (one path = the hot case; many = the cold case). */
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  /** How long the window lasts at least (and at most, without `minAnswers`). */
  durationSeconds: number;
  /**
   * Answers a window should hold: past `durationSeconds` it goes on, a second at a time, until this many completed or
   * `maxDurationSeconds` passed. A p99 of a few dozen answers is their slowest one; a page answered 30 times a second
   * would otherwise be measured over about 90.
   */
  minAnswers?: number;
  maxDurationSeconds?: number;
  /** Where in `paths` the run begins (0 by default): a cold case's next window goes on where its last one stopped. */
  firstPath?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSecond: number;
  /** Bytes read per answer, headers included: what a cold case's answers weigh on average. */
  meanAnswerBytes: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** The window the figures were taken over, in whole seconds: `durationSeconds`, or longer to reach `minAnswers`. */
  windowSeconds: number;
  /** Where in the spec's paths the run began. */
  firstPath: number;
  /** Requests sent, answered or not: paths[firstPath] up to (not including) paths[firstPath + pathsSent], wrapping. */
  pathsSent: number;
}

/**
 * Stops the run once it has lasted `seconds` and `answers` responses completed. autocannon ends a stopped run at its
 * next whole second, so the figures stay per-second samples.
 */
function endOnceAnswered(run: autocannon.Instance, seconds: number, answers: number): void {
  let answered = 0;
  let lasted = false;
  const endIfDone = () => {
    if (lasted && answered >= answers) run.stop();
  };
  run.on("response", () => {
    answered += 1;
    endIfDone();
  });
  setTimeout(() => {
    lasted = true;
    endIfDone();
  }, seconds * 1000).unref();
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as LoadSpec;
  // Nothing here reads a body: keeping each one would cost this process more CPU than a big page costs the bare server.
  discardAnswerBodies();
  const first = spec.firstPath ?? 0;
  let next = first;
  const longest = Math.max(spec.durationSeconds, spec.maxDurationSeconds ?? 0);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        duration: spec.minAnswers === undefined ? spec.durationSeconds : longest,
        headers: spec.headers,
        requests: [
          {
            method: "GET",
            setupRequest: (request) => {
              const path = spec.paths[next % spec.paths.length]!;
              next += 1;
              return { ...request, path };
            },
          },
        ],
      },
      (err: unknown, done: autocannon.Result) => (err ? reject(err as Error) : resolve(done)),
    );
    if (spec.minAnswers !== undefined) endOnceAnswered(run, spec.durationSeconds, spec.minAnswers);
  });
  const out: LoadResult = {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bytesPerSecond: result.throughput.average,
    meanAnswerBytes: result.requests.total === 0 ? 0 : Math.round(result.throughput.total / result.requests.total),
    requests: result.requests.total,
    // autocannon counts a request that timed out among its errors as well as its timeouts.
    errors: result.errors,
    // 304 is a success for conditional requests; anything else outside 2xx counts.
    non2xx: result.non2xx,
    windowSeconds: Math.round(result.duration),
    firstPath: first,
    pathsSent: next - first,
  };
  process.stdout.write(JSON.stringify(out));
}

main().catch((err: unknown) => {
  process.stderr.write(`load worker failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
