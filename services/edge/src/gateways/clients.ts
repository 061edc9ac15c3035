import { createGrpcClient } from "@odds/platform";
import { catalogue, events, history, usage } from "@odds/proto";

/** One typed client per downstream service, created once per process with a default deadline. */
export interface DownstreamClients {
  events: events.EventsServiceClient;
  history: history.HistoryServiceClient;
  catalogue: catalogue.CatalogueServiceClient;
  usage: usage.UsageServiceClient;
}

export interface DownstreamAddresses {
  events: string;
  history: string;
  catalogue: string;
  usage: string;
}

export function createDownstreamClients(addresses: DownstreamAddresses, deadlineMs: number): DownstreamClients {
  return {
    events: createGrpcClient(events.EventsServiceClient, addresses.events, {
      serviceName: "odds.events.v1.EventsService",
      defaultDeadlineMs: deadlineMs,
    }),
    history: createGrpcClient(history.HistoryServiceClient, addresses.history, {
      serviceName: "odds.history.v1.HistoryService",
      defaultDeadlineMs: deadlineMs,
    }),
    catalogue: createGrpcClient(catalogue.CatalogueServiceClient, addresses.catalogue, {
      serviceName: "odds.catalogue.v1.PersistedCatalogue",
      defaultDeadlineMs: deadlineMs,
    }),
    usage: createGrpcClient(usage.UsageServiceClient, addresses.usage, {
      serviceName: "odds.usage.v1.UsageService",
      defaultDeadlineMs: deadlineMs,
    }),
  };
}

export function closeDownstreamClients(clients: DownstreamClients): void {
  for (const client of Object.values(clients)) client.close();
}
