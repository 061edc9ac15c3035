import { parseConfig } from "@odds/platform";
import { ingestConfigSchema } from "./config";
import { clockFrom, cycleInstant } from "./cycle-loop";

describe("ingest configuration", () => {
  test("defaults: 2-minute cycles, port 50055, pinnacle and betfair as fair-odds books, backfill from capture start", () => {
    const config = parseConfig(ingestConfigSchema, {});
    expect(config.INGEST_INTERVAL_MS).toBe(120_000);
    expect(config.GRPC_PORT).toBe(50055);
    expect(config.FAIR_ODDS_BOOKMAKERS).toEqual(["pinnacle", "betfair_ex_au"]);
    expect(config.BACKFILL_DAYS).toBeUndefined();
    expect(config.SIM_QUIET_LEAGUES).toEqual([]);
  });

  test("lists are comma-separated and bad values fail naming the variable", () => {
    const config = parseConfig(ingestConfigSchema, { SIM_QUIET_LEAGUES: "NRL, BBL", BACKFILL_DAYS: "35" });
    expect(config.SIM_QUIET_LEAGUES).toEqual(["NRL", "BBL"]);
    expect(config.BACKFILL_DAYS).toBe(35);
    expect(() => parseConfig(ingestConfigSchema, { INGEST_INTERVAL_MS: "soon" })).toThrow(/INGEST_INTERVAL_MS/);
    expect(() => parseConfig(ingestConfigSchema, { EVENTS_SERVICE_ADDR: "nowhere" })).toThrow(/EVENTS_SERVICE_ADDR/);
  });

  test("cycle instants fall on interval boundaries, so a restart within an interval replays the same cycle", () => {
    expect(cycleInstant(Date.parse("2026-11-21T09:01:59.999Z"), 120_000).toISOString()).toBe(
      "2026-11-21T09:00:00.000Z",
    );
    expect(cycleInstant(Date.parse("2026-11-21T09:02:00.000Z"), 120_000).toISOString()).toBe(
      "2026-11-21T09:02:00.000Z",
    );
  });

  test("INGEST_CLOCK_START: the clock reads that instant at start and runs on at the wall clock's pace", () => {
    const config = parseConfig(ingestConfigSchema, { INGEST_CLOCK_START: "2026-11-20T09:00:00Z" });
    let wallMs = Date.parse("2030-01-01T00:00:00Z");
    const clock = clockFrom(new Date(config.INGEST_CLOCK_START as string), () => wallMs);
    expect(new Date(clock()).toISOString()).toBe("2026-11-20T09:00:00.000Z");
    wallMs += 90_000;
    expect(new Date(clock()).toISOString()).toBe("2026-11-20T09:01:30.000Z");
    expect(clockFrom(undefined, () => wallMs)()).toBe(wallMs);
    expect(() => parseConfig(ingestConfigSchema, { INGEST_CLOCK_START: "2026-11-20 09:00" })).toThrow(
      /INGEST_CLOCK_START/,
    );
  });
});
