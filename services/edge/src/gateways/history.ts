import { callUnary } from "@odds/platform";
import type { common, history } from "@odds/proto";

/** The edge's only door to the history service (read side; RecordQuotes is ingest's). */
export class HistoryGateway {
  constructor(private readonly client: history.HistoryServiceClient) {}

  listTicks(request: history.ListTicksRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listTicks, request);
  }
}
