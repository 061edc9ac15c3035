import type { usage } from "@odds/proto";
import type { UsageGateway } from "../gateways/usage";

interface KeyReads {
  running: Promise<usage.ResolveKeyResponse>;
  /** The read that starts once `running` settles, shared by every caller that arrived meanwhile. */
  queued?: Promise<usage.ResolveKeyResponse>;
}

const settled = () => undefined;

/**
 * Key records read fresh from the usage service (not from the grant cache), at most one read of a
 * key in flight. A caller never gets a read that began before it asked: while a read of its key is
 * running, callers wait for the next one, which starts when the running one settles and answers
 * everyone who queued. A key polled by many connections at once costs one read at a time, not one
 * per request, and each answer is still as fresh as a read of its own.
 */
export class FreshKeyReads {
  private readonly reads = new Map<string, KeyReads>();

  constructor(private readonly usage: UsageGateway) {}

  resolve(keyHash: string): Promise<usage.ResolveKeyResponse> {
    const reads = this.reads.get(keyHash);
    if (!reads) return this.start(keyHash);
    reads.queued ??= reads.running.then(settled, settled).then(() => this.start(keyHash));
    return reads.queued;
  }

  private start(keyHash: string): Promise<usage.ResolveKeyResponse> {
    const reads: KeyReads = { running: this.usage.resolveKey(keyHash) };
    this.reads.set(keyHash, reads);
    // Registered before any queued read's continuation, so the queued read finds the slot free.
    void reads.running.then(settled, settled).then(() => {
      if (this.reads.get(keyHash) === reads) this.reads.delete(keyHash);
    });
    return reads.running;
  }
}
