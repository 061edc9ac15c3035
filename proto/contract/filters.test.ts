import { matchesFlag, matchesList } from "./filters";

describe("contract filter semantics", () => {
  test("a boolean filter: true keeps matching, false keeps non-matching, omitted keeps all", () => {
    expect([matchesFlag(true, true), matchesFlag(true, false)]).toEqual([true, false]);
    expect([matchesFlag(false, true), matchesFlag(false, false)]).toEqual([false, true]);
    expect([matchesFlag(undefined, true), matchesFlag(undefined, false)]).toEqual([true, true]);
  });

  test("a list filter: empty keeps all, otherwise only listed values", () => {
    expect(matchesList([], "AFL")).toBe(true);
    expect(matchesList(["AFL", "NRL"], "NRL")).toBe(true);
    expect(matchesList(["AFL", "NRL"], "EPL")).toBe(false);
  });
});
