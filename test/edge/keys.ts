import { callUnary, createGrpcClient } from "@odds/platform";
import { usage } from "@odds/proto";
import { e2eStack } from "../support/e2e";

/** Creates keys through the running usage service, exactly as the admin CLI does. */
export async function createKey(
  tier: "lite" | "base" | "pro" | "internal",
  options: { active?: boolean; email?: string } = {},
) {
  const client = createGrpcClient(usage.UsageServiceClient, `127.0.0.1:${e2eStack().ports.usage}`, {
    defaultDeadlineMs: 10_000,
  });
  try {
    const created = await callUnary(client, client.createKey, {
      tier,
      email: options.email ?? `e2e-${tier}@example.com`,
      customerId: "",
    });
    const keyID = created.key?.keyId ?? "";
    if (options.active === false) await callUnary(client, client.setKeyActive, { keyId: keyID, isActive: false });
    return { apiKey: created.apiKey, keyID };
  } finally {
    client.close();
  }
}

/** Activates or deactivates a key through the running usage service, as the admin CLI does. */
export async function setKeyActive(keyID: string, isActive: boolean): Promise<void> {
  const client = createGrpcClient(usage.UsageServiceClient, `127.0.0.1:${e2eStack().ports.usage}`, {
    defaultDeadlineMs: 10_000,
  });
  try {
    await callUnary(client, client.setKeyActive, { keyId: keyID, isActive });
  } finally {
    client.close();
  }
}
