import { callUnary } from "@odds/platform";
import type { usage } from "@odds/proto";

/** Served usage of one key, numbered so that sending it twice counts it once. */
export interface UsageBatch {
  /** The sending process (one id per process). */
  senderID: string;
  /** The batch's place among the sender's batches of this key: 1, 2, ... */
  sequence: number;
  keyID: string;
  atMs: number;
  requests: number;
  entities: number;
}

/** The edge's only door to the usage service: key resolution and usage recording. */
export class UsageGateway {
  constructor(private readonly client: usage.UsageServiceClient) {}

  /** Key lookups take a deadline of their own: every keyed request waits on one, so it is shorter than a data call's. */
  resolveKey(keyHash: string, deadlineMs?: number): Promise<usage.ResolveKeyResponse> {
    const options = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
    return callUnary(this.client, this.client.resolveKey, { keyHash }, options);
  }

  /** Sending the same batch (same sender and sequence) again counts it once. */
  async recordUsage(batch: UsageBatch): Promise<void> {
    const { senderID, sequence, keyID, atMs, requests, entities } = batch;
    await callUnary(this.client, this.client.recordUsage, {
      batchId: "",
      senderId: senderID,
      sequence,
      keyId: keyID,
      atMs,
      requests,
      entities,
    });
  }
}
