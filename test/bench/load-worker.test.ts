// The bench's load process (test/dist/bench/load-worker.js, as the bench spawns it) against a real local
// server that records what it is asked: a window begins at `firstPath`, and says how many requests it sent.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, removeScratchFolder, scratchFolder } from "@odds/local";
import type { LoadResult, LoadSpec } from "./load-worker";

const WORKER = join(REPO_ROOT, "test", "dist", "bench", "load-worker.js");

/** The load worker's result for `spec` (`paths` ["/"] and no headers unless it names them), run against `handler`. */
async function loadAgainst(
  handler: RequestListener,
  spec: Omit<LoadSpec, "origin" | "paths" | "headers"> & Partial<Pick<LoadSpec, "paths">>,
): Promise<LoadResult> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = scratchFolder("bench-load-worker-");
  try {
    const port = (server.address() as { port: number }).port;
    const file = join(dir, "spec.json");
    const full: LoadSpec = { paths: ["/"], headers: {}, ...spec, origin: `http://127.0.0.1:${port}` };
    writeFileSync(file, JSON.stringify(full));
    const { stdout } = await promisify(execFile)(process.execPath, [WORKER, file]);
    return JSON.parse(stdout) as LoadResult;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    removeScratchFolder(dir);
  }
}

/** A handler answering `{}` after `delayMs`. */
function answeringAfter(delayMs: number): RequestListener {
  return (_request, response) => {
    setTimeout(() => response.writeHead(200, { "content-type": "application/json" }).end("{}"), delayMs);
  };
}

test("a window begins at firstPath, goes through the paths in turn (wrapping), and counts what it sent", async () => {
  const asked: string[] = [];
  const paths = Array.from({ length: 7 }, (_, index) => `/p${index}`);
  const connections = 1;
  const result = await loadAgainst(
    (request, response) => {
      asked.push(request.url ?? "");
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    },
    { paths, connections, durationSeconds: 1, firstPath: 5 },
  );

  expect(result.firstPath).toBe(5);
  expect(result.requests).toBeGreaterThan(7);
  // Every request the server saw was sent, in turn from paths[5]; one still in flight as the window closed
  // may not have reached it.
  expect(asked.slice(0, 4)).toEqual(["/p5", "/p6", "/p0", "/p1"]);
  asked.forEach((path, n) => expect(path).toBe(paths[(5 + n) % paths.length]));
  expect(result.pathsSent).toBeGreaterThanOrEqual(asked.length);
  expect(result.pathsSent).toBeLessThanOrEqual(asked.length + connections);
});

// One connection to a server answering after 250 ms gets about four answers a second; one answering at once, hundreds.
// Each window lasts its duration at least and its bound at most (give or take the last tick on a busy machine).
test.each([
  {
    delayMs: 250,
    durationSeconds: 1,
    minAnswers: 10,
    maxDurationSeconds: 8,
    held: true,
    shortest: 3,
    longest: 7,
    why: "until that many completed (10 answers take 2.5 s)",
  },
  {
    delayMs: 250,
    durationSeconds: 1,
    minAnswers: 1_000,
    maxDurationSeconds: 3,
    held: false,
    shortest: 3,
    longest: 4,
    why: "to its bound when that many never complete",
  },
  {
    delayMs: 0,
    durationSeconds: 2,
    minAnswers: 5,
    maxDurationSeconds: 8,
    held: true,
    shortest: 2,
    longest: 4,
    why: "its duration when that many completed sooner",
  },
])(
  "a window that should hold answers goes on $why",
  async ({ delayMs, durationSeconds, minAnswers, maxDurationSeconds, held, shortest, longest }) => {
    const result = await loadAgainst(answeringAfter(delayMs), {
      connections: 1,
      durationSeconds,
      minAnswers,
      maxDurationSeconds,
    });
    if (held) expect(result.requests).toBeGreaterThanOrEqual(minAnswers);
    else expect(result.requests).toBeLessThan(minAnswers);
    expect(result.windowSeconds).toBeGreaterThanOrEqual(shortest);
    expect(result.windowSeconds).toBeLessThanOrEqual(longest);
  },
);

test("a request that timed out counts as one error", async () => {
  // autocannon gives a request 10 s: the window's first times out, and the one sent after it is still waiting at 11 s.
  const result = await loadAgainst(() => undefined, { connections: 1, durationSeconds: 11 });
  expect(result.requests).toBe(0);
  expect(result.errors).toBe(1);
}, 30_000);
