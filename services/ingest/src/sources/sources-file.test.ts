import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SOURCES_FILE, loadSources } from "./sources-file";

const settings = { seed: "s", quietLeagues: [] };
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "sources-")), "sources.yaml");
  writeFileSync(path, text);
  return path;
};

describe("the sources file", () => {
  test("the committed defaults carry one bookmaker through two sources of different rank", () => {
    const sources = loadSources(DEFAULT_SOURCES_FILE, settings);
    expect(sources.map((s) => [s.id, s.rank])).toEqual([
      ["sim-aggregator", 10],
      ["sim-betfair-stream", 20],
    ]);
  });

  test("a bad file fails naming the file and the problem", () => {
    const path = file("sources:\n  - id: x\n    kind: telepathy\n    rank: 1\n    bookmakers: [tab]\n");
    expect(() => loadSources(path, settings)).toThrow(new RegExp(`invalid sources file ${path}: sources.0.kind`));
    expect(() => loadSources("/nonexistent/sources.yaml", settings)).toThrow(/cannot read sources file/);
  });

  test("duplicate ids and unknown bookmakers are refused", () => {
    const twice = file(
      "sources:\n  - {id: a, kind: simulated, rank: 1, bookmakers: [tab]}\n  - {id: a, kind: simulated, rank: 2, bookmakers: [tab]}\n",
    );
    expect(() => loadSources(twice, settings)).toThrow(/unique/);
    const unknown = file("sources:\n  - {id: a, kind: simulated, rank: 1, bookmakers: [nobody]}\n");
    expect(() => loadSources(unknown, settings)).toThrow(/unknown simulated bookmakers nobody/);
  });
});
