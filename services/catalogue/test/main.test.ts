import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { callUnary, createGrpcClient } from "@odds/platform";
import { freePort, testMongoUri, waitUntil } from "@odds/local";
import { catalogue } from "@odds/proto";

const MAIN = join(__dirname, "..", "dist", "main.js");

function run(env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env } });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exit };
}

describe("catalogue process (built main.js)", () => {
  test("refuses to start without CATALOGUE_MONGODB_URI, naming it", async () => {
    const proc = run({});
    expect(await proc.exit).toBe(1);
    expect(proc.output()).toContain("CATALOGUE_MONGODB_URI");
  });

  test("serves gRPC and Prometheus metrics, then stops cleanly on SIGTERM", async () => {
    const [grpcPort, metricsPort] = [await freePort(), await freePort()];
    const proc = run({
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(metricsPort),
      CATALOGUE_MONGODB_URI: testMongoUri("catalogue_main"),
    });
    const client = createGrpcClient(catalogue.CatalogueServiceClient, `127.0.0.1:${grpcPort}`, {
      defaultDeadlineMs: 10_000,
    });
    try {
      // Until the process serves: a loaded machine can take tens of seconds to start it.
      const page = await waitUntil(
        "the catalogue service serving",
        () => callUnary(client, client.listSports, catalogue.ListSportsRequest.create()),
        { timeoutMs: 50_000, intervalMs: 200 },
      );
      expect(page.items).toEqual([]);
      await callUnary(client, client.applyCatalogue, catalogue.ApplyCatalogueRequest.fromPartial({ cycleId: "c" }));
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/catalogue_apply_duration_seconds_count 1\b/);
    } finally {
      client.close();
      proc.child.kill("SIGTERM");
    }
    expect(await proc.exit).toBe(0);
  });
});
