import { callUnary } from "@odds/platform";
import type { usage } from "@odds/proto";

/** The edge's only door to the usage service: key resolution and usage recording. */
export class UsageGateway {
  constructor(private readonly client: usage.UsageServiceClient) {}

  resolveKey(keyHash: string): Promise<usage.ResolveKeyResponse> {
    return callUnary(this.client, this.client.resolveKey, { keyHash });
  }

  async recordUsage(keyID: string, atMs: number, requests: number, entities: number): Promise<void> {
    await callUnary(this.client, this.client.recordUsage, { keyId: keyID, atMs, requests, entities });
  }
}
