import { TaskCancelledError } from "cockatiel";
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
    const pages = new HeavyPages({ slots: 2, queue: 1, maxMs: 60_000 }, "big pages");
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

  test("past its time a page is refused with 429; one still waiting is never loaded, and the queue goes on", async () => {
    const pages = new HeavyPages({ slots: 1, queue: 2, maxMs: 150 }, "big pages");
    const running = held("a");
    const waiting = held("b");
    const [first, refused] = [pages.run(running.load), pages.run(waiting.load)].map((page) =>
      expect(page).rejects.toMatchObject({ status: 429, headers: { "Retry-After": "1" } }),
    );
    await Promise.all([first, refused]);
    expect(running.started).toBe(true);
    expect(waiting.started).toBe(false);

    // The refused running load still holds its slot. Queued now, with time to spare, a page runs once
    // that load ends: the refused waiting page is skipped, never loaded.
    const next = held("c");
    const later = pages.run(next.load);
    await new Promise((resolve) => setImmediate(resolve));
    expect(next.started).toBe(false);
    running.finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waiting.started).toBe(false);
    expect(next.started).toBe(true);
    next.finish();
    await expect(later).resolves.toBe("c");
  });

  test("a load that fails for its own reasons is not taken for a refusal", async () => {
    const pages = new HeavyPages({ slots: 1, queue: 0, maxMs: 60_000 }, "big pages");
    const cancelled = new TaskCancelledError("the load's own deadline");
    await expect(pages.run(() => Promise.reject(cancelled))).rejects.toBe(cancelled);
  });

  test("a load's own failure passes through unchanged and frees its slot", async () => {
    const pages = new HeavyPages({ slots: 1, queue: 0, maxMs: 60_000 }, "big pages");
    const failure = new Error("downstream failed");
    await expect(pages.run(() => Promise.reject(failure))).rejects.toBe(failure);
    await expect(pages.run(async () => "next")).resolves.toBe("next");
  });
});
