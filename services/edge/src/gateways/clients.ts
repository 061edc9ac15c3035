import { createGrpcClient } from "@odds/platform";
import { catalogue, events, history, usage } from "@odds/proto";

/** One typed client per downstream service, created once per process with a default deadline. */
export interface DownstreamClients {
  events: events.EventsServiceClient;
  history: history.HistoryServiceClient;
  catalogue: catalogue.CatalogueServiceClient;
  /** The catalogue on connections of its own, for pages of megabytes (see routes/catalogue.ts). */
  catalogueHeavy: catalogue.CatalogueServiceClient;
  usage: usage.UsageServiceClient;
}

export interface DownstreamAddresses {
  events: string;
  history: string;
  catalogue: string;
  usage: string;
}

/**
 * Every call the edge makes is safe to repeat (reads, and usage batches the usage service applies once by
 * id), so a call failing UNAVAILABLE while a service's pod is replaced is retried within its deadline.
 */
export function createDownstreamClients(addresses: DownstreamAddresses, deadlineMs: number): DownstreamClients {
  const calls = { defaultDeadlineMs: deadlineMs, retryUnavailable: true };
  return {
    events: createGrpcClient(events.EventsServiceClient, addresses.events, calls),
    history: createGrpcClient(history.HistoryServiceClient, addresses.history, calls),
    catalogue: createGrpcClient(catalogue.CatalogueServiceClient, addresses.catalogue, calls),
    catalogueHeavy: createGrpcClient(catalogue.CatalogueServiceClient, addresses.catalogue, {
      ...calls,
      ownConnections: true,
    }),
    usage: createGrpcClient(usage.UsageServiceClient, addresses.usage, calls),
  };
}

export function closeDownstreamClients(clients: DownstreamClients): void {
  for (const client of Object.values(clients)) client.close();
}
