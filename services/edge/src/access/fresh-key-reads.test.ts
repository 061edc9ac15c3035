import { usage } from "@odds/proto";
import type { UsageGateway } from "../gateways/usage";
import { FreshKeyReads } from "./fresh-key-reads";

/** A usage gateway whose reads settle when the test says, each answering the record as it was when it began. */
function gatedGateway() {
  const reads: { keyHash: string; settle: () => void; fail: (err: Error) => void }[] = [];
  let email = "first@example.com";
  const gateway = {
    resolveKey: (keyHash: string) =>
      new Promise<usage.ResolveKeyResponse>((resolve, reject) => {
        // The record as it stands when the read begins.
        const record = usage.KeyRecord.create({ keyId: keyHash.slice(0, 16), email });
        reads.push({
          keyHash,
          settle: () => resolve({ key: record }),
          fail: reject,
        });
      }),
  } as unknown as UsageGateway;
  return { gateway, reads, setEmail: (next: string) => (email = next) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("FreshKeyReads", () => {
  it("never answers a caller with a read that began before it asked; callers meanwhile share the next read", async () => {
    const { gateway, reads, setEmail } = gatedGateway();
    const fresh = new FreshKeyReads(gateway);
    const first = fresh.resolve("a".repeat(64));
    expect(reads).toHaveLength(1);
    // Asked while the first read runs: the record may change after that read began, so they wait for another.
    const second = fresh.resolve("a".repeat(64));
    const third = fresh.resolve("a".repeat(64));
    expect(reads).toHaveLength(1);
    setEmail("changed@example.com");
    reads[0]!.settle();
    expect((await first).key?.email).toBe("first@example.com");
    await tick();
    expect(reads).toHaveLength(2);
    reads[1]!.settle();
    expect((await second).key?.email).toBe("changed@example.com");
    expect(await third).toBe(await second);
    // Nothing in flight: the next caller starts a read of its own at once.
    const fourth = fresh.resolve("a".repeat(64));
    expect(reads).toHaveLength(3);
    reads[2]!.settle();
    await fourth;
  });

  it("keeps keys apart and passes a failed read to its callers only", async () => {
    const { gateway, reads } = gatedGateway();
    const fresh = new FreshKeyReads(gateway);
    const a = fresh.resolve("a".repeat(64));
    const b = fresh.resolve("b".repeat(64));
    expect(reads.map((read) => read.keyHash[0])).toEqual(["a", "b"]);
    const queued = fresh.resolve("a".repeat(64));
    reads[0]!.fail(new Error("usage service unavailable"));
    await expect(a).rejects.toThrow("unavailable");
    await tick();
    // The queued caller gets a read of its own after the failed one.
    expect(reads).toHaveLength(3);
    reads[2]!.settle();
    reads[1]!.settle();
    expect((await queued).key?.keyId).toBe("a".repeat(16));
    expect((await b).key?.keyId).toBe("b".repeat(16));
  });
});
