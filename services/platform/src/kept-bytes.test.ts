import { asBuffer, heldBytes, keptBytes } from "./kept-bytes";

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

  it("reads a plain Uint8Array (a driver's binary field) as a Buffer: copied out of a larger block, else over it", () => {
    const batch = new Uint8Array(64 * 1024).fill(7);
    const field = batch.subarray(100, 1_100);
    const kept = keptBytes(field);
    expect(Buffer.isBuffer(kept)).toBe(true);
    expect(heldBytes(kept)).toBe(1_000);
    expect(kept.equals(field)).toBe(true);
    const whole = keptBytes(batch);
    expect(whole.buffer).toBe(batch.buffer);
    expect(whole.length).toBe(batch.length);
  });

  it("views a plain Uint8Array as a Buffer over the same memory, and gives a Buffer back as it is", () => {
    const batch = new Uint8Array(64).fill(3);
    const field = batch.subarray(8, 24);
    const viewed = asBuffer(field);
    expect(Buffer.isBuffer(viewed)).toBe(true);
    expect(viewed.buffer).toBe(batch.buffer);
    expect([viewed.byteOffset, viewed.length]).toEqual([8, 16]);
    const buffer = Buffer.from("odds");
    expect(asBuffer(buffer)).toBe(buffer);
  });
});
