import { DEFAULT_PLANS_FILE } from "./config";
import { PlanBook, PlanFileError } from "./plans";

describe("PlanBook", () => {
  const plans = PlanBook.fromFile(DEFAULT_PLANS_FILE);

  it("limits the default lite plan to a few leagues, the top 4 bookmakers and no fair odds", () => {
    const lite = plans.planFor("lite");
    expect(lite.leagueIDs).toEqual(["AFL", "NRL", "EPL"]);
    expect(lite.bookmakerIDs).toEqual(["sportsbet", "tab", "ladbrokes_au", "neds"]);
    expect(lite.fairOdds).toBe(false);
    expect(lite.limits.every((limit) => limit.maxRequests !== null)).toBe(true);
  });

  it("lets the default base plan see everything with fair odds under finite request limits", () => {
    const base = plans.planFor("base");
    expect([base.sportIDs, base.leagueIDs, base.bookmakerIDs]).toEqual([null, null, null]);
    expect(base.fairOdds).toBe(true);
    expect(base.limits.map((limit) => limit.maxRequests)).not.toContain(null);
  });

  it("leaves every window of the default internal plan unlimited", () => {
    const internal = plans.planFor("internal");
    expect(internal.limits).toHaveLength(5);
    expect(internal.limits.every((limit) => limit.maxRequests === null && limit.maxEntities === null)).toBe(true);
  });

  it("gives the default pro plan everything, v1 history and two streams, under finite request limits", () => {
    const pro = plans.planFor("pro");
    expect([pro.sportIDs, pro.leagueIDs, pro.bookmakerIDs]).toEqual([null, null, null]);
    expect([pro.history, pro.maxStreams]).toEqual([true, 2]);
    expect(pro.limits.map((limit) => limit.maxRequests)).not.toContain(null);
    const base = plans.planFor("base");
    expect([base.history, base.maxStreams]).toEqual([false, 0]);
    expect(plans.planFor("lite").history).toBe(false);
  });

  it("rejects a plans file without the pro tier, naming it", () => {
    const yaml = `
tiers:
  lite: { sports: all, leagues: all, bookmakers: all, fairOdds: false, limits: {} }
  base: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
  internal: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
`;
    expect(() => PlanBook.fromYaml(yaml)).toThrow(/tiers\.pro/);
  });

  it("resolves an explicit bookmaker list and treats a missing window as unlimited", () => {
    const yaml = `
tiers:
  lite: { sports: all, leagues: [AFL], bookmakers: { only: [tab, neds] }, fairOdds: false, limits: { per-day: { max-requests: 10, max-entities: null } } }
  base: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
  pro: { sports: all, leagues: all, bookmakers: all, fairOdds: true, history: true, streams: 2, limits: {} }
  internal: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
`;
    const lite = PlanBook.fromYaml(yaml).planFor("lite");
    expect(lite.bookmakerIDs).toEqual(["tab", "neds"]);
    expect(lite.limits.find((limit) => limit.window === "per-day")).toEqual({
      window: "per-day",
      maxRequests: 10,
      maxEntities: null,
    });
    expect(lite.limits.find((limit) => limit.window === "per-second")?.maxRequests).toBeNull();
  });

  it("rejects a plans file with a malformed limit, naming the field", () => {
    const yaml = `
tiers:
  lite: { sports: all, leagues: all, bookmakers: all, fairOdds: false, limits: { per-day: { max-requests: -1, max-entities: null } } }
  base: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
  pro: { sports: all, leagues: all, bookmakers: all, fairOdds: true, history: true, streams: 2, limits: {} }
  internal: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
`;
    expect(() => PlanBook.fromYaml(yaml)).toThrow(PlanFileError);
    expect(() => PlanBook.fromYaml(yaml)).toThrow(/tiers\.lite\.limits\.per-day\.max-requests/);
  });

  it("rejects a top-N bookmaker cap without a bookmaker order", () => {
    const yaml = `
tiers:
  lite: { sports: all, leagues: all, bookmakers: { top: 3 }, fairOdds: false, limits: {} }
  base: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
  pro: { sports: all, leagues: all, bookmakers: all, fairOdds: true, history: true, streams: 2, limits: {} }
  internal: { sports: all, leagues: all, bookmakers: all, fairOdds: true, limits: {} }
`;
    expect(() => PlanBook.fromYaml(yaml)).toThrow(/bookmakerOrder/);
  });
});
