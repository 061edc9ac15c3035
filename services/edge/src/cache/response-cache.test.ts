import { setTimeout as sleep } from "node:timers/promises";
import { metricsRegistry } from "@odds/platform";
import { Answer } from "./answer";
import { ResponseCache } from "./response-cache";

/** edge_answer_loads_total of one outcome, as the metrics registry holds it. */
async function loadsBy(outcome: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric("edge_answer_loads_total")?.get();
  return metric?.values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

function answerOf(text: string): Answer {
  return new Answer(Buffer.from(JSON.stringify({ data: [text] })), 1);
}

/** A load that counts its calls and takes `ms` before answering what `current` holds then. */
function loader(ms: number) {
  const state = { current: "before", calls: 0 };
  const load = async () => {
    state.calls++;
    const seen = state.current;
    await sleep(ms);
    return answerOf(seen);
  };
  return { state, load };
}

describe("ResponseCache", () => {
  test("concurrent misses of one key share one load, and a hit within the max age does not load again", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const { state, load } = loader(20);
    const answers = await Promise.all([cache.answer("k", load), cache.answer("k", load), cache.answer("k", load)]);
    expect(state.calls).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(await cache.answer("k", load)).toBe(answers[0]);
    expect(state.calls).toBe(1);
  });

  test("an answer's age counts from its load's start, so a slow load does not outlive the max age", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 400 });
    const { state, load } = loader(300);
    const began = performance.now();
    await cache.answer("k", load);
    // A write lands once the load has read: every answer served past the max age from the load's
    // start must see it. Counted from the load's end, the old answer would serve until about 700 ms.
    state.current = "after";
    await sleep(Math.max(0, began + 450 - performance.now()));
    const served = await cache.answer("k", load);
    expect(JSON.parse(served.body.toString()).data).toEqual(["after"]);
    expect(state.calls).toBe(2);
  });

  test("a renewal is handed the answer it renews, and keeps it when the load returns it (its source said unchanged)", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, refreshAheadMs: 60_000 });
    const first = answerOf("a");
    const handed: (Answer | undefined)[] = [];
    const unchanged = async (held: Answer | undefined) => {
      handed.push(held);
      return held ?? first;
    };
    const before = await loadsBy("unchanged");
    expect(await cache.answer("k", unchanged)).toBe(first);
    // Every hit is within the refresh-ahead window: it is served the kept answer and renews it.
    expect(await cache.answer("k", unchanged)).toBe(first);
    await sleep(10);
    expect(handed).toEqual([undefined, first]);
    expect(await cache.answer("k", unchanged)).toBe(first);
    expect(await loadsBy("unchanged")).toBeGreaterThan(before);
  });

  test("a load slower than the max age answers its own request but is not kept", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 50 });
    const { state, load } = loader(80);
    await cache.answer("k", load);
    await cache.answer("k", load);
    expect(state.calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
