#!/usr/bin/env node
import { Command, InvalidArgumentError } from "commander";
import { join } from "node:path";
import { Interruption } from "./interruption";
import { DEFAULT_PORTS, REPO_ROOT, startStack, type StackPorts } from "./stack";

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgumentError("expected a port number");
  return port;
}

// Ctrl-C or SIGTERM, while the stack starts or once it is up, stops everything it started.
const interruption = new Interruption();

const program = new Command("odds-local").description("The Odds Read API v2 local stack");

program
  .command("up")
  .description("start FerretDB, redis-server and every service; Ctrl-C stops everything")
  .option("--data-dir <dir>", "where stores, logs and dev keys live", join(REPO_ROOT, ".local"))
  .option("--edge-port <port>", "HTTP port of the edge", portOption, DEFAULT_PORTS.edge)
  .action(async (opts: { dataDir: string; edgePort: number }) => {
    const ports: StackPorts = { ...DEFAULT_PORTS, edge: opts.edgePort };
    interruption.listen((message) => process.stdout.write(`\n${message}\n`));
    const starting = startStack({
      dataDir: opts.dataDir,
      ports,
      persistRedis: true,
      onProgress: (message) => process.stdout.write(`  ${message}\n`),
      signal: interruption.signal,
    });
    interruption.ownStarting(starting);
    const stack = await starting;
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
  });

program.parseAsync().catch((err: unknown) => {
  // Interrupted: the interruption stops what was started and exits with the signal's code.
  if (interruption.signal.aborted) return;
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
