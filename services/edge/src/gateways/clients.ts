import { clientWithJsonPageWire, createGrpcClient, JSON_PAGE_METHODS } from "@odds/platform";
import { catalogue, events, history, usage } from "@odds/proto";

/** One typed client per downstream service, created once per process with a default deadline. */
export interface DownstreamClients {
  events: events.EventsServiceClient;
  /** The events service on connections of their own, for pages of many events with all their odds (routes/events.ts). */
  eventsHeavy: events.EventsServiceClient;
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

/*
 * Pages are read with their items as views of the received message (`clientWithJsonPageWire`): the
 * edge envelopes them and drops them, so copying each first (the generated decoder's way) only made
 * one more copy of every page, 40 MB for a page of 100 events at full scale.
 */
const EventsClient = clientWithJsonPageWire(events.EventsServiceClient, JSON_PAGE_METHODS.events);
const HistoryClient = clientWithJsonPageWire(history.HistoryServiceClient, JSON_PAGE_METHODS.history);
const CatalogueClient = clientWithJsonPageWire(catalogue.CatalogueServiceClient, JSON_PAGE_METHODS.catalogue);

/**
 * Every call the edge makes is safe to repeat (reads, and usage batches the usage service applies once by
 * their sender and number), so a call failing UNAVAILABLE while a service's pod is replaced is retried within its deadline.
 */
export function createDownstreamClients(addresses: DownstreamAddresses, deadlineMs: number): DownstreamClients {
  const calls = { defaultDeadlineMs: deadlineMs, retryUnavailable: true };
  return {
    events: createGrpcClient(EventsClient, addresses.events, calls),
    eventsHeavy: createGrpcClient(EventsClient, addresses.events, { ...calls, ownConnections: true }),
    history: createGrpcClient(HistoryClient, addresses.history, calls),
    catalogue: createGrpcClient(CatalogueClient, addresses.catalogue, calls),
    catalogueHeavy: createGrpcClient(CatalogueClient, addresses.catalogue, {
      ...calls,
      ownConnections: true,
    }),
    usage: createGrpcClient(usage.UsageServiceClient, addresses.usage, calls),
  };
}

export function closeDownstreamClients(clients: DownstreamClients): void {
  for (const client of Object.values(clients)) client.close();
}
