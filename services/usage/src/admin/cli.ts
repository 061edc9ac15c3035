#!/usr/bin/env node
// Admin CLI for API keys. Talks to the usage service over gRPC, so the same command works
// against the local stack and, with USAGE_SERVICE_ADDR, against any deployment.
import { callUnary, createGrpcClient } from "@odds/platform";
import { usage } from "@odds/proto";
import { Command, Option } from "commander";
import { TIERS } from "../plans";

function keyJson(key: usage.KeyRecord | undefined) {
  if (!key) return null;
  return {
    keyID: key.keyId,
    tier: key.tier,
    isActive: key.isActive,
    customerID: key.customerId || null,
    email: key.email || null,
    createdAt: new Date(key.createdAtMs).toISOString(),
  };
}

function connect(address: string): usage.UsageServiceClient {
  return createGrpcClient(usage.UsageServiceClient, address, {
    defaultDeadlineMs: 10_000,
  });
}

/** Runs one admin action against the usage service and prints its result as JSON. */
async function run(address: string, action: (client: usage.UsageServiceClient) => Promise<unknown>): Promise<void> {
  const client = connect(address);
  try {
    process.stdout.write(`${JSON.stringify(await action(client), null, 2)}\n`);
  } catch (err) {
    const details = (err as { details?: string }).details ?? (err as Error).message;
    process.stderr.write(`error: ${details}\n`);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

export function adminProgram(): Command {
  const program = new Command("admin").description("Manage API keys of the Sports Odds Read API");
  program.addOption(
    new Option("--addr <host:port>", "usage service gRPC address").env("USAGE_SERVICE_ADDR").default("127.0.0.1:50054"),
  );
  const address = () => program.opts<{ addr: string }>().addr;
  const keys = program.command("keys").description("API keys (stored only as SHA-256 hashes)");

  keys
    .command("create")
    .description("create a key and print it once as JSON {apiKey, keyID, tier}")
    .addOption(new Option("--tier <tier>", "plan tier").choices(TIERS).makeOptionMandatory())
    .option("--email <email>", "contact email")
    .option("--customer-id <customerID>", "billing customer id")
    .action((options: { tier: string; email?: string; customerId?: string }) =>
      run(address(), async (client) => {
        const created = await callUnary(client, client.createKey, {
          tier: options.tier,
          email: options.email ?? "",
          customerId: options.customerId ?? "",
        });
        return { apiKey: created.apiKey, keyID: created.key?.keyId, tier: created.key?.tier };
      }),
    );

  for (const [name, isActive] of [
    ["deactivate", false],
    ["reactivate", true],
  ] as const) {
    keys
      .command(`${name} <keyID>`)
      .description(`${name} a key (its requests then answer ${isActive ? "normally" : "403 Inactive API key"})`)
      .action((keyID: string) =>
        run(address(), async (client) =>
          keyJson(await callUnary(client, client.setKeyActive, { keyId: keyID, isActive })),
        ),
      );
  }

  keys
    .command("list")
    .description("list every key (keyID, tier, state; never the key)")
    .action(() => run(address(), async (client) => (await callUnary(client, client.listKeys, {})).keys.map(keyJson)));
  return program;
}

if (require.main === module) {
  adminProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    });
}
