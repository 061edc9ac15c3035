import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, removeScratchFolder, scratchFolder } from "@odds/local";
import { v1 } from "@odds/proto";
import { e2eStack } from "../support/e2e";
import { getV1, untilAdmitted, v1BaseUrl } from "./client";

/**
 * Parquet history files on the running stack, read back by an independent reader (pyarrow, installed
 * into .tools/python by deploy/local/prepare-test-tools.sh) and compared tick for tick with /v1/odds/history.
 */

const PYTHON = join(REPO_ROOT, ".tools", "python", "bin", "python");
const READER = `
import json, sys
import pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
rows = []
for row in table.to_pylist():
    row["changed_at"] = row["changed_at"].strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (row["changed_at"].microsecond // 1000)
    rows.append(row)
meta = pq.ParquetFile(sys.argv[1]).metadata
codecs = sorted({meta.row_group(g).column(c).compression for g in range(meta.num_row_groups) for c in range(meta.num_columns)})
print(json.dumps({"schema": {f.name: str(f.type) for f in table.schema}, "codecs": codecs, "rows": rows}))
`;

async function download(path: string, headers: Record<string, string> = {}) {
  const res = await untilAdmitted(() =>
    fetch(`${v1BaseUrl()}${path}`, { headers: { authorization: `Bearer ${e2eStack().apiKeys.pro}`, ...headers } }),
  );
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A page of /v1/odds/history; a 503 (the live tier past its deadline on a busy machine) is retried as clients do. */
async function readPage(path: string) {
  for (let attempt = 1; ; attempt++) {
    const page = await untilAdmitted(() => getV1(path, { tier: "pro" }));
    if (page.status === 200) return page;
    if (page.status !== 503 || attempt === 5) throw new Error(`${page.status}: ${JSON.stringify(page.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
  }
}

describe("v1 Parquet history files", () => {
  let files: v1.V1HistoryFile[];

  beforeAll(async () => {
    const res = await untilAdmitted(() => getV1("/history/files", { tier: "pro" }));
    expect(res.status).toBe(200);
    files = res.body.data;
  }, 60_000);

  it("lists complete league-days from each league's history start, and refuses other plans", async () => {
    expect(files.length).toBeGreaterThan(0);
    const today = new Date().toISOString().slice(0, 10);
    for (const file of files) {
      expect(v1.v1HistoryFile.parse(file)).toEqual(file);
      expect(file.day < today).toBe(true);
      expect(file.day >= "2025-12-22").toBe(true);
      expect(file.url).toBe(`/v1/history/files/${file.league_id}/${file.day}`);
    }
    const base = await getV1("/history/files", { tier: "base" });
    expect(base.status).toBe(403);
    expect(base.body.detail).toMatch(/pro plan; this key's plan is base/);
  });

  it("serves a league-day as a typed, compressed Parquet file equal tick for tick to /v1/odds/history", async () => {
    const file = files[0]!;
    const { res, bytes } = await download(file.url.slice(3));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);

    const dir = scratchFolder("odds-parquet-");
    const path = join(dir, "file.parquet");
    writeFileSync(path, bytes);
    const read = JSON.parse(execFileSync(PYTHON, ["-c", READER, path], { maxBuffer: 512 * 1024 * 1024 }).toString());
    removeScratchFolder(dir);
    expect(read.codecs).toEqual(["ZSTD"]);
    expect(read.schema).toMatchObject({
      event_id: "dictionary<values=string, indices=int32, ordered=0>",
      changed_at: "timestamp[ms, tz=UTC]",
      decimal_odds: "double",
      is_main_line: "bool",
      kind: "dictionary<values=string, indices=int32, ordered=0>",
    });
    expect(read.rows.length).toBeGreaterThan(0);

    // The same day of every event in the file, through the route.
    const from = `${file.day}T00:00:00Z`;
    const to = new Date(Date.parse(from) + 86_400_000).toISOString();
    const served: v1.V1OddsTick[] = [];
    const events = [...new Set<string>(read.rows.map((row: v1.V1OddsTick) => row.event_id))].sort();
    for (const event of events) {
      let next: string | null = `/odds/history?event_id=${event}&from=${from}&to=${to}&limit=5000`;
      while (next !== null) {
        const page = await readPage(next);
        served.push(...page.body.data);
        next = page.body.links.next;
      }
    }
    expect(read.rows).toEqual(served);

    // Written once: the same bytes again, and 304 for the ETag.
    const again = await download(file.url.slice(3));
    expect(again.res.headers.get("etag")).toBe(etag);
    expect(again.bytes.equals(bytes)).toBe(true);
    const unchanged = await download(file.url.slice(3), { "if-none-match": etag! });
    expect(unchanged.res.status).toBe(304);
  }, 180_000);

  it("answers a day without a file 404 and a malformed day 400, as problems", async () => {
    const missing = await untilAdmitted(() => getV1("/history/files/AFL/2026-10-09", { tier: "pro" }));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const malformed = await untilAdmitted(() => getV1("/history/files/AFL/yesterday", { tier: "pro" }));
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/^day/);
  });
});
