#!/usr/bin/env node
import { Command, InvalidArgumentError } from "commander";
import { join } from "node:path";
import { DEFAULT_PORTS, REPO_ROOT, startStack, type StackPorts } from "./stack";

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgumentError("expected a port number");
  return port;
}

const program = new Command("odds-local").description("The Odds Read API v2 local stack");

program
  .command("up")
  .description("start FerretDB, redis-server and every service; Ctrl-C stops everything")
  .option("--data-dir <dir>", "where stores, logs and dev keys live", join(REPO_ROOT, ".local"))
  .option("--edge-port <port>", "HTTP port of the edge", portOption, DEFAULT_PORTS.edge)
  .action(async (opts: { dataDir: string; edgePort: number }) => {
    const ports: StackPorts = { ...DEFAULT_PORTS, edge: opts.edgePort };
    const stack = await startStack({
      dataDir: opts.dataDir,
      ports,
      persistRedis: true,
      onProgress: (message) => process.stdout.write(`  ${message}\n`),
    });
    process.stdout.write(
      [
        "",
        "Odds Read API v2 is up",
        `  base URL   ${stack.baseUrl}`,
        `  API key    ${stack.apiKeys.base}   (tier base)`,
        `  other keys lite ${stack.apiKeys.lite}  internal ${stack.apiKeys.internal}`,
        `  try        curl -H "x-api-key: ${stack.apiKeys.base}" ${stack.baseUrl}/events/`,
        `  docs       ${stack.baseUrl}/docs`,
        `  stores     FerretDB :${stack.mongo.port} (events, catalogue, usage, ingest), :${stack.mongoHistory.port} (history live),`,
        `             :${stack.mongoArchive.port} (history archive); redis-server :${stack.redis.port}; data in ${stack.dataDir}`,
        `  logs       ${join(stack.dataDir, "logs")}`,
        "Ctrl-C stops everything.",
        "",
      ].join("\n"),
    );
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write("\nstopping...\n");
      await stack.stop();
      process.exit(0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
  });

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
