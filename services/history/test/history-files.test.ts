import { status } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import { history, v1 } from "@odds/proto";
import { readParquet } from "parquet-wasm/node";
import { tableFromIPC } from "apache-arrow";
import {
  EVERYTHING,
  ML_HOME,
  newEvent,
  quote,
  snapshot,
  startHistory,
  startOwnFerretDb,
  type HistoryUnderTest,
} from "./harness";

const DAY = 86_400_000;
const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("v1 history files (ListHistoryFiles, GetHistoryFile) against real stores", () => {
  let archiveServer: Awaited<ReturnType<typeof startOwnFerretDb>>;
  let service: HistoryUnderTest;
  // A complete day: one that ended more than the service's settle time (15 min) ago, even just after
  // midnight (the day before the one an hour ago).
  const completeDay = midnight(Date.now() - 3_600_000) - DAY;
  const league = `L${Date.now().toString(36).toUpperCase()}`;
  const event = newEvent(completeDay + 20 * 3_600_000, league);

  beforeAll(async () => {
    archiveServer = await startOwnFerretDb("history-archive-files");
    service = await startHistory({ archiveUri: `${archiveServer.url}/history_archive` });
    await service.record({
      events: [event],
      snapshots: [
        snapshot(event, completeDay + 3_600_000, [quote(ML_HOME, 1.9)]),
        snapshot(event, completeDay + 7_200_000, [quote(ML_HOME, 1.8)]),
        // Today: not in a complete day yet.
        snapshot(event, midnight(Date.now()) + 60_000, [quote(ML_HOME, 1.7)]),
      ],
    });
  });

  afterAll(async () => {
    await service.stop();
    await archiveServer.stop();
  });

  const list = async (caller = EVERYTHING) =>
    (
      await callUnary(
        service.client,
        service.client.listHistoryFiles,
        history.ListHistoryFilesRequest.create({ caller, leagueIds: [league] }),
      )
    ).items.map((item) => JSON.parse(Buffer.from(item).toString()) as v1.V1HistoryFile);

  async function fetchFile(day: string) {
    const chunks: history.HistoryFileChunk[] = [];
    for await (const chunk of service.client.getHistoryFile(
      history.GetHistoryFileRequest.create({ caller: EVERYTHING, leagueId: league, day }),
    ) as AsyncIterable<history.HistoryFileChunk>) {
      chunks.push(chunk);
    }
    return { head: chunks[0]!, bytes: Buffer.concat(chunks.map((chunk) => Buffer.from(chunk.data))) };
  }

  it("lists only complete days with ticks, within the plan's leagues", async () => {
    expect(await list()).toEqual([
      { league_id: league, day: dayOf(completeDay), url: `/v1/history/files/${league}/${dayOf(completeDay)}` },
    ]);
    expect(await list({ ...EVERYTHING, allLeagues: false, leagueIds: ["AFL"] })).toEqual([]);
  });

  it("writes a league-day once as Parquet with its ticks, size and ETag, then serves the same file", async () => {
    const { head, bytes } = await fetchFile(dayOf(completeDay));
    expect(Number(head.size)).toBe(bytes.length);
    const table = tableFromIPC(readParquet(bytes).intoIPCStream());
    expect(table.numRows).toBe(2);
    expect(table.getChild("decimal_odds")!.toArray()).toEqual(new Float64Array([1.9, 1.8]));
    expect(table.getChild("outcome_id")!.get(0)).toBe(v1.v1Id("outcome", ML_HOME));
    const again = await fetchFile(dayOf(completeDay));
    expect(again.head.etag).toBe(head.etag);
    expect(again.bytes.equals(bytes)).toBe(true);
    expect(
      await service.stores.liveDb
        .collection("historyFiles.files")
        .countDocuments({ filename: { $regex: `^${league}/` } }),
    ).toBe(1);
  });

  it("answers NOT_FOUND for today (incomplete) and INVALID_ARGUMENT for a malformed day", async () => {
    const today = await fetchFile(dayOf(Date.now())).catch((err: { code: number }) => err);
    expect((today as { code: number }).code).toBe(status.NOT_FOUND);
    const bad = await fetchFile("2026-13-45").catch((err: { code: number; details: string }) => err);
    expect((bad as { code: number }).code).toBe(status.INVALID_ARGUMENT);
  });
});
