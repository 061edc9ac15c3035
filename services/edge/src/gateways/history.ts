import { Metadata } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import type { common, history } from "@odds/proto";

/** How long a history file may take to be produced (first read of a league-day) and streamed. */
const FILE_DEADLINE_MS = 120_000;

/** The edge's only door to the history service (read side; RecordQuotes is ingest's). */
export class HistoryGateway {
  constructor(private readonly client: history.HistoryServiceClient) {}

  listTicks(request: history.ListTicksRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listTicks, request);
  }

  listHistoryFiles(request: history.ListHistoryFilesRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listHistoryFiles, request);
  }

  /** The file's chunks as they arrive; the first carries its size and ETag. */
  getHistoryFile(request: history.GetHistoryFileRequest): AsyncIterable<history.HistoryFileChunk> {
    return this.client.getHistoryFile(request, new Metadata(), { deadline: Date.now() + FILE_DEADLINE_MS });
  }
}
