import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { countedBy } from "../../test/fixtures";
import { ANSWER_OVERHEAD_BYTES, Answer } from "./answer";
import { loadContentTags } from "./content-tag";
import { ResponseCache } from "./response-cache";

/** edge_answer_loads_total of one outcome. */
const loadsBy = (outcome: string) => countedBy("edge_answer_loads_total", "outcome", outcome);

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

/** A source that says unchanged to every load naming an answer: `first` to the first load, then the answer named. */
function unchangedSource() {
  const first = answerOf("a");
  const handed: (Answer | undefined)[] = [];
  const unchanged = async (held: Answer | undefined) => {
    handed.push(held);
    return held ?? first;
  };
  return { first, handed, unchanged };
}

beforeAll(loadContentTags);

describe("ResponseCache", () => {
  test("concurrent misses of one key share one load, and a hit within the max age does not load again", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const { state, load } = loader(20);
    const answers = await Promise.all([
      cache.answer("k", () => "1", load),
      cache.answer("k", () => "1", load),
      cache.answer("k", () => "1", load),
    ]);
    expect(state.calls).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(await cache.answer("k", () => "1", load)).toBe(answers[0]);
    expect(state.calls).toBe(1);
  });

  test("an answer's age counts from its load's start, so a slow load does not outlive the max age", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 400 });
    const { state, load } = loader(300);
    const began = performance.now();
    await cache.answer("k", () => "1", load);
    // A write lands once the load has read: every answer served past the max age from the load's
    // start must see it. Counted from the load's end, the old answer would serve until about 700 ms.
    state.current = "after";
    await sleep(Math.max(0, began + 450 - performance.now()));
    const served = await cache.answer("k", () => "1", load);
    expect(JSON.parse(Buffer.concat(served.parts).toString()).data).toEqual(["after"]);
    expect(state.calls).toBe(2);
  });

  test("a renewal is handed the answer it renews, and keeps it when the load returns it (its source said unchanged)", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, refreshAheadMs: 60_000 });
    const { first, handed, unchanged } = unchangedSource();
    const before = await loadsBy("unchanged");
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    // Every hit is within the refresh-ahead window: it is served the kept answer and renews it.
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    await sleep(10);
    expect(handed).toEqual([undefined, first]);
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    expect(await loadsBy("unchanged")).toBeGreaterThan(before);
  });

  test("a load slower than the max age answers its own request, is never served again, and the next load names it", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 50 });
    const handed: (Answer | undefined)[] = [];
    const made: Answer[] = [];
    const slow = async (held: Answer | undefined) => {
      handed.push(held);
      await sleep(80);
      made.push(answerOf(`load ${made.length + 1}`));
      return made.at(-1)!;
    };
    expect(await cache.answer("k", () => "1", slow)).toBe(made[0]);
    // Past its max age as it arrived: the next request waits for a load, which is handed it to renew.
    expect(await cache.answer("k", () => "1", slow)).toBe(made[1]);
    expect(handed).toEqual([undefined, made[0]]);
  });

  test("an answer past its max age is renewed, not sent again, when its source says it is unchanged", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 50 });
    const { first, handed, unchanged } = unchangedSource();
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    await sleep(80);
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    expect(handed).toEqual([undefined, first]);
    // Renewed: its age restarted, so a request within the max age is served it without a load.
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    expect(handed).toHaveLength(2);
  });

  test("an older version's answer is never served: the next request waits for a load that names it", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const { first, handed, unchanged } = unchangedSource();
    const before = await loadsBy("unchanged");
    expect(await cache.answer("k", () => "1", unchanged)).toBe(first);
    // Version 2 left the page as it was: its source says so, and the kept answer is served under version 2.
    expect(await cache.answer("k", () => "2", unchanged)).toBe(first);
    expect(handed).toEqual([undefined, first]);
    expect(await loadsBy("unchanged")).toBe(before + 1);
    expect(await cache.answer("k", () => "2", unchanged)).toBe(first);
    expect(handed).toHaveLength(2);
    // Version 3 changed it: the new page is served, and version 2's answer never again.
    const changed = answerOf("b");
    expect(
      await cache.answer(
        "k",
        () => "3",
        async () => changed,
      ),
    ).toBe(changed);
    expect(await cache.answer("k", () => "3", unchanged)).toBe(changed);
    expect(handed).toHaveLength(2);
  });

  test("a key has one load at a time: a request under another version waits for it, then renews what it made", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const older = answerOf("version 1");
    const newer = answerOf("version 2");
    const handed: (Answer | undefined)[] = [];
    let version = "1";
    let inFlight = 0;
    const loadOf = (answer: Answer, ms: number) => async (held: Answer | undefined) => {
      handed.push(held);
      inFlight++;
      expect(inFlight).toBe(1);
      await sleep(ms);
      inFlight--;
      return answer;
    };
    const slowOlder = cache.answer("k", () => version, loadOf(older, 60));
    await sleep(5);
    // Versions 2 and 3 arrive while version 1's page is loading: nothing is loaded beside it, and neither
    // request is served version 1's page. Both are answered by one renewal, under the version current
    // once version 1's load ended, handed version 1's answer to name.
    version = "2";
    const second = cache.answer("k", () => version, loadOf(newer, 10));
    version = "3";
    const third = cache.answer("k", () => version, loadOf(newer, 10));
    expect(await slowOlder).toBe(older);
    expect(await second).toBe(newer);
    expect(await third).toBe(newer);
    expect(handed).toEqual([undefined, older]);
    // Kept under version 3: served without a load.
    expect(
      await cache.answer(
        "k",
        () => "3",
        async () => {
          throw new Error("loaded again");
        },
      ),
    ).toBe(newer);
  });

  test("a request waiting on another version's load that fails loads for itself", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const failing = cache.answer(
      "k",
      () => "1",
      async () => {
        await sleep(30);
        throw new Error("events unavailable");
      },
    );
    await sleep(5);
    const after = answerOf("version 2");
    const waiting = cache.answer(
      "k",
      () => "2",
      async (held) => {
        expect(held).toBeUndefined();
        return after;
      },
    );
    await expect(failing).rejects.toThrow("events unavailable");
    expect(await waiting).toBe(after);
  });

  test("counts each kept answer as it holds, encodings made later included, and evicts to stay within its bound", async () => {
    const key = (i: number) => `k${String(i).padStart(2, "0")}`;
    // Random ids: a small page that compresses to about half, so its encodings outgrow the room counted for them.
    const pageOf = (i: number) =>
      Buffer.from(
        JSON.stringify({ data: [key(i), ...Array.from({ length: 40 }, () => randomBytes(16).toString("hex"))] }),
      );
    const made = Array.from({ length: 40 }, (_, i) => new Answer(pageOf(i), 60));
    const one = made[0]!.size + key(0).length;
    const cache = new ResponseCache({ maxBytes: 20 * one, maxAgeMs: 60_000 });
    for (const [i, answer] of made.entries())
      await cache.answer(
        key(i),
        () => "1",
        async () => answer,
      );
    // As counted before any encoding: the last 20 kept, each its held body, encodings' room, objects and key.
    expect(cache.size).toBe(20);
    expect(cache.keptBytes).toBe(20 * one);
    const kept = async (i: number) =>
      (await cache.answer(
        key(i),
        () => "1",
        async () => answerOf("reloaded"),
      )) === made[i];
    // Their encodings made, the answers hold more than they were counted for: the cache counts them again.
    for (const answer of made.slice(20)) {
      await answer.bytes("gzip");
      await answer.bytes("br");
    }
    expect(made[39]!.size).toBeGreaterThan(made[39]!.length * 1.25 + ANSWER_OVERHEAD_BYTES);
    expect(cache.size).toBeLessThan(20);
    expect(cache.keptBytes).toBeLessThanOrEqual(20 * one);
    expect(cache.keptBytes).toBeGreaterThan(cache.size * one);
    // The answer counted last is still served; the least recently used went first.
    expect(await kept(39)).toBe(true);
    expect(await kept(21)).toBe(false);
  });

  test("an answer past its max age whose load fails is not served", async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 50 });
    await cache.answer(
      "k",
      () => "1",
      async () => answerOf("a"),
    );
    await sleep(80);
    await expect(
      cache.answer(
        "k",
        () => "1",
        async () => {
          throw new Error("events unavailable");
        },
      ),
    ).rejects.toThrow("events unavailable");
  });
});
