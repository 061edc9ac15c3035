// The bench's load process (test/dist/bench/load-worker.js, as the bench spawns it) against a real local
// server that records what it is asked: a window begins at `firstPath`, and says how many requests it sent.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, removeScratchFolder, scratchFolder } from "@odds/local";
import type { LoadResult, LoadSpec } from "./load-worker";

const WORKER = join(REPO_ROOT, "test", "dist", "bench", "load-worker.js");

/** The load worker's result for `spec` (its origin a server answering every request after `delayMs`). */
async function loadAgainstSlowServer(delayMs: number, spec: Omit<LoadSpec, "origin" | "paths" | "headers">) {
  const server = createServer((_request, response) => {
    setTimeout(() => response.writeHead(200, { "content-type": "application/json" }).end("{}"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = scratchFolder("bench-load-worker-");
  try {
    const port = (server.address() as { port: number }).port;
    const file = join(dir, "spec.json");
    writeFileSync(file, JSON.stringify({ ...spec, origin: `http://127.0.0.1:${port}`, paths: ["/"], headers: {} }));
    const { stdout } = await promisify(execFile)(process.execPath, [WORKER, file]);
    return JSON.parse(stdout) as LoadResult;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    removeScratchFolder(dir);
  }
}

test("a window begins at firstPath, goes through the paths in turn (wrapping), and counts what it sent", async () => {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? "");
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = scratchFolder("bench-load-worker-");
  try {
    const port = (server.address() as { port: number }).port;
    const paths = Array.from({ length: 7 }, (_, index) => `/p${index}`);
    const spec: LoadSpec = {
      origin: `http://127.0.0.1:${port}`,
      paths,
      headers: {},
      connections: 1,
      durationSeconds: 1,
      firstPath: 5,
    };
    const file = join(dir, "spec.json");
    writeFileSync(file, JSON.stringify(spec));
    const { stdout } = await promisify(execFile)(process.execPath, [WORKER, file]);
    const result = JSON.parse(stdout) as LoadResult;

    expect(result.firstPath).toBe(5);
    expect(result.requests).toBeGreaterThan(7);
    // Every request the server saw was sent, in turn from paths[5]; one still in flight as the window closed
    // may not have reached it.
    expect(asked.slice(0, 4)).toEqual(["/p5", "/p6", "/p0", "/p1"]);
    asked.forEach((path, n) => expect(path).toBe(paths[(5 + n) % paths.length]));
    expect(result.pathsSent).toBeGreaterThanOrEqual(asked.length);
    expect(result.pathsSent).toBeLessThanOrEqual(asked.length + spec.connections);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    removeScratchFolder(dir);
  }
});

describe("a window that should hold a number of answers", () => {
  // One connection to a server answering after 250 ms: about four answers a second.
  test("goes on past its duration, a second at a time, until that many completed", async () => {
    const result = await loadAgainstSlowServer(250, {
      connections: 1,
      durationSeconds: 1,
      minAnswers: 10,
      maxDurationSeconds: 8,
    });
    expect(result.requests).toBeGreaterThanOrEqual(10);
    // Ten answers take 2.5 s: the window ends at the next whole second, long before its bound.
    expect(result.windowSeconds).toBeGreaterThanOrEqual(3);
    expect(result.windowSeconds).toBeLessThan(8);
  });

  test("ends at its bound when that many never complete", async () => {
    const result = await loadAgainstSlowServer(250, {
      connections: 1,
      durationSeconds: 1,
      minAnswers: 1_000,
      maxDurationSeconds: 2,
    });
    // Its bound, give or take the last tick on a busy machine.
    expect(result.windowSeconds).toBeGreaterThanOrEqual(2);
    expect(result.windowSeconds).toBeLessThan(4);
    expect(result.requests).toBeLessThan(1_000);
  });

  test("lasts its duration when that many completed sooner", async () => {
    const result = await loadAgainstSlowServer(0, {
      connections: 1,
      durationSeconds: 2,
      minAnswers: 5,
      maxDurationSeconds: 8,
    });
    // Its duration, not its bound of 8 s.
    expect(result.windowSeconds).toBeGreaterThanOrEqual(2);
    expect(result.windowSeconds).toBeLessThan(5);
    expect(result.requests).toBeGreaterThan(5);
  });
});
