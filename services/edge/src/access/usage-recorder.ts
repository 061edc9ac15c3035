import type { Logger } from "@odds/platform";
import type { UsageGateway } from "../gateways/usage";

interface PendingUsage {
  requests: number;
  entities: number;
}

/**
 * Buffers served requests and entities per key and sends them to the usage service's
 * rollups once per interval, so billing data costs one RPC per key per interval rather
 * than one per request. A batch the usage service could not take (down, hung, past the
 * deadline) goes back into the buffer for the next interval: usage is delayed, never lost.
 */
export class UsageRecorder {
  private pending = new Map<string, PendingUsage>();
  private timer: NodeJS.Timeout | undefined;

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
    this.add(keyID, { requests: 1, entities });
  }

  private add(keyID: string, usage: PendingUsage): void {
    const entry = this.pending.get(keyID) ?? { requests: 0, entities: 0 };
    entry.requests += usage.requests;
    entry.entities += usage.entities;
    this.pending.set(keyID, entry);
  }

  async flush(nowMs = Date.now()): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await Promise.all(
      [...batch].map(async ([keyID, usage]) => {
        try {
          await this.usage.recordUsage(keyID, nowMs, usage.requests, usage.entities);
        } catch (err) {
          this.add(keyID, usage);
          this.logger.warn({ keyID, err: { message: (err as Error).message } }, "usage rollup deferred to next flush");
        }
      }),
    );
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
