import { fnvState, hash32, hash32From, unit } from "./random";

describe("hashing a key from a shared prefix", () => {
  test("continuing from a prefix's state answers the hash of the whole key", () => {
    const keys: Array<[string, string]> = [
      ["sportsbet|AFL_2026_R1_COL_CAR|", "points|HOME|game|ML|HOME|"],
      ["pinnacle|E1|disposals|NICK_DAICOS_1_AFL|game|OU|", "OVER|24.5"],
      ["", "anything"],
      ["prefix only", ""],
      ["", ""],
      ["ünïcode|", "✓|-3.5"],
    ];
    for (const [prefix, rest] of keys) {
      expect(hash32From(fnvState(prefix), rest)).toBe(hash32(prefix + rest));
      expect(hash32From(fnvState(rest, fnvState(prefix)), "")).toBe(hash32(prefix + rest));
    }
  });

  test("known values stay put (the simulated feed's output for a seed depends on them)", () => {
    expect(hash32("")).toBe(2872998923);
    expect(hash32("seed|move|tab|E1|main")).toBe(4135706248);
    expect(hash32From(fnvState("seed|move|"), "tab|E1|main")).toBe(4135706248);
    expect(hash32From(fnvState("sportsbet|E1|"), "points|HOME|game|ML|HOME|")).toBe(2342508689);
  });
});

describe("a uniform draw for keys", () => {
  test("is hash32 of the keys joined by | (the feed's draws for a seed stay the same)", () => {
    const keySets: Array<Array<string | number>> = [
      [],
      [""],
      ["", ""],
      ["bench-2026", "suspend", "sportsbet", "afl_2026-10-31_richmond_vs_collingwood", "main", 14925123],
      ["seed", "bias", "tab", "E1", "disposals|NICK_DAICOS_1_AFL|game|OU", "OVER", 1792209600000],
      ["seed", -3.5, 0, 0.1 + 0.2, 1e21, -0, Number.MAX_SAFE_INTEGER],
      ["ünïcode", "✓", "a|b"],
      [42],
    ];
    for (const keys of keySets) expect([keys, unit(...keys)]).toEqual([keys, hash32(keys.join("|")) / 4294967296]);
  });
});
