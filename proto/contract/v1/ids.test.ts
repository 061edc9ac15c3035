import { isV1Id, v1Id, v1IdPattern } from "./ids";

describe("v1 identifiers", () => {
  test("have the contract's prefix and length, in [a-z0-9]", () => {
    expect(v1Id("event", "AFL_2026-11-21_COLLINGWOOD_vs_CARLTON")).toMatch(/^ev_[a-z0-9]{12}$/);
    expect(v1Id("player", "NICK_DAICOS_1_AFL")).toMatch(/^pl_[a-z0-9]{12}$/);
    expect(v1Id("market", "points-home-game-ml")).toMatch(/^mk_[a-z0-9]{16}$/);
    expect(v1Id("outcome", "points-home-game-ml-home")).toMatch(/^oc_[a-z0-9]{16}$/);
  });

  test("are deterministic, and differ between kinds and between internal ids", () => {
    expect(v1Id("event", "E1")).toBe(v1Id("event", "E1"));
    expect(v1Id("event", "E1")).not.toBe(v1Id("event", "E2"));
    expect(v1Id("market", "x").slice(3)).not.toBe(v1Id("outcome", "x").slice(3));
  });

  test("a v2 id is not a v1 id", () => {
    expect(isV1Id("event", "AFL_2026-11-21_A_vs_B")).toBe(false);
    expect(isV1Id("event", v1Id("event", "E1"))).toBe(true);
    expect(isV1Id("player", v1Id("event", "E1"))).toBe(false);
    expect(v1IdPattern("outcome").test(v1Id("outcome", "o"))).toBe(true);
  });
});
