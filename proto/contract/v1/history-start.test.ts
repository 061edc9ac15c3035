import { CONVERTED_HISTORY_START_DAY, HistoryStarts, V1_HISTORY_START_DAY } from "./history-start";

describe("HistoryStarts", () => {
  const starts = new HistoryStarts(["AFL", "EPL"]);

  it("starts converted leagues on 2025-12-22 and every other league on 2026-10-08", () => {
    expect(starts.dayOf("AFL")).toBe("2025-12-22");
    expect(starts.dayOf("EPL")).toBe(CONVERTED_HISTORY_START_DAY);
    expect(starts.dayOf("NBA")).toBe("2026-10-08");
    expect(starts.dayOf("NBA")).toBe(V1_HISTORY_START_DAY);
  });

  it("gives the start as midnight UTC in milliseconds", () => {
    expect(new Date(starts.msOf("NRL")).toISOString()).toBe("2026-10-08T00:00:00.000Z");
    expect(new Date(starts.msOf("AFL")).toISOString()).toBe("2025-12-22T00:00:00.000Z");
  });

  it("with no converted leagues starts every league on 2026-10-08", () => {
    expect(new HistoryStarts([]).dayOf("AFL")).toBe("2026-10-08");
  });
});
