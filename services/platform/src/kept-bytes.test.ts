import { heldBytes, keptBytes } from "./kept-bytes";

describe("kept bytes", () => {
  it("copies bytes cut from a larger block (the shared pool slab) into a block of their own", () => {
    const small = Buffer.from(JSON.stringify({ teamID: "RICHMOND_TIGERS_AFL" }));
    expect(heldBytes(small)).toBeGreaterThan(2 * small.length);
    const kept = keptBytes(small);
    expect(kept.equals(small)).toBe(true);
    expect(heldBytes(kept)).toBe(kept.length);
  });

  it("keeps as they are bytes that fill most of the block they view, uncopied", () => {
    const message = Buffer.allocUnsafeSlow(100_000);
    const page = message.subarray(1_000, 99_000);
    expect(keptBytes(page)).toBe(page);
    expect(heldBytes(page)).toBe(100_000);
  });
});
