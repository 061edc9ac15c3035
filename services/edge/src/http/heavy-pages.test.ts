import { ApiError } from "./errors";
import { HeavyPages } from "./heavy-pages";

/** A load that finishes when the test says so. */
function held(value: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  return {
    load: async () => {
      started = true;
      await done;
      return value;
    },
    finish,
    get started() {
      return started;
    },
  };
}

describe("HeavyPages", () => {
  test("runs at most `slots` loads at once, queues `queue` more, and answers 429 with Retry-After past that", async () => {
    const pages = new HeavyPages(2, 1, "big pages");
    const loads = ["a", "b", "c"].map(held);
    const answers = loads.map((load) => pages.run(load.load));
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads.map((load) => load.started)).toEqual([true, true, false]);

    const rejected = pages.run(held("d").load);
    await expect(rejected).rejects.toBeInstanceOf(ApiError);
    await expect(rejected).rejects.toMatchObject({
      status: 429,
      error: "Rate limit exceeded",
      detail: "too many big pages in flight on this server; retry after 1 s",
      headers: { "Retry-After": "1" },
    });

    // A finished load frees its slot for the queued one, which then answers like the others.
    loads[0]!.finish();
    await expect(answers[0]).resolves.toBe("a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads[2]!.started).toBe(true);
    loads[1]!.finish();
    loads[2]!.finish();
    await expect(Promise.all(answers)).resolves.toEqual(["a", "b", "c"]);
  });

  test("a load's own failure passes through unchanged and frees its slot", async () => {
    const pages = new HeavyPages(1, 0, "big pages");
    const failure = new Error("downstream failed");
    await expect(pages.run(() => Promise.reject(failure))).rejects.toBe(failure);
    await expect(pages.run(async () => "next")).resolves.toBe("next");
  });
});
