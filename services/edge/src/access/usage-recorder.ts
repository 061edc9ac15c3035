import { randomUUID } from "node:crypto";
import type { Logger } from "@odds/platform";
import type { UsageBatch, UsageGateway } from "../gateways/usage";

interface PendingUsage {
  requests: number;
  entities: number;
}

/**
 * Buffers served requests and entities per key and sends them to the usage service's
 * rollups once per interval, so billing data costs one RPC per key per interval rather
 * than one per request. Each batch carries this process's id and its number among the key's
 * batches (1, 2, ...), and the usage service counts a sender's batch of a key only when its number
 * is above the last one it counted. A batch whose call failed or timed out (it may or may not have
 * been applied) is re-sent unchanged, same number, until the usage service acknowledges it;
 * meanwhile that key's new usage accumulates and is cut into its next batch, numbered next, only
 * then. Usage is delayed, never lost and never doubled; memory stays one batch, one accumulator
 * and one number per key.
 */
export class UsageRecorder {
  private pending = new Map<string, PendingUsage>();
  /** Batches sent but not acknowledged, per key: re-sent as they are. */
  private readonly unacknowledged = new Map<string, UsageBatch>();
  /** The number of each key's last batch cut. */
  private readonly sequences = new Map<string, number>();
  private readonly senderID = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly usage: UsageGateway,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  record(keyID: string, entities: number): void {
    const entry = this.pending.get(keyID) ?? { requests: 0, entities: 0 };
    entry.requests += 1;
    entry.entities += entities;
    this.pending.set(keyID, entry);
  }

  /** One flush at a time: a slow usage service never has the same batch in flight twice from here. */
  flush(nowMs = Date.now()): Promise<void> {
    this.flushing ??= this.send(nowMs).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async send(nowMs: number): Promise<void> {
    for (const [keyID, usage] of this.pending) {
      if (this.unacknowledged.has(keyID)) continue;
      const sequence = (this.sequences.get(keyID) ?? 0) + 1;
      this.sequences.set(keyID, sequence);
      this.unacknowledged.set(keyID, { senderID: this.senderID, sequence, keyID, atMs: nowMs, ...usage });
      this.pending.delete(keyID);
    }
    await Promise.all(
      [...this.unacknowledged.values()].map(async (batch) => {
        try {
          await this.usage.recordUsage(batch);
          this.unacknowledged.delete(batch.keyID);
        } catch (err) {
          this.logger.warn(
            { keyID: batch.keyID, sequence: batch.sequence, err: { message: (err as Error).message } },
            "usage batch not acknowledged; re-sent unchanged with the next flush",
          );
        }
      }),
    );
  }

  /** Usage still unsent: what a stop would lose if the usage service stays unreachable. */
  get backlog(): { keys: number; requests: number } {
    const batches = [...this.unacknowledged.values(), ...this.pending.values()];
    return {
      keys: new Set([...this.unacknowledged.keys(), ...this.pending.keys()]).size,
      requests: batches.reduce((sum, b) => sum + b.requests, 0),
    };
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    // A second round sends what the first acknowledgement freed (new usage behind a re-sent batch).
    await this.flush();
    const { keys, requests } = this.backlog;
    if (requests > 0)
      this.logger.error({ keys, requests }, "usage not recorded at shutdown: usage service unreachable");
  }
}
