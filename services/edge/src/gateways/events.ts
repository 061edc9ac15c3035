import { type ClientReadableStream, Metadata } from "@grpc/grpc-js";
import { callUnary } from "@odds/platform";
import type { common, events } from "@odds/proto";

/** The edge's only door to the events service. */
export class EventsGateway {
  constructor(private readonly client: events.EventsServiceClient) {}

  listEvents(request: events.ListEventsRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listEvents, request);
  }

  listEventsV1(request: events.ListEventsV1Request): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listEventsV1, request);
  }

  feedStatus(): Promise<events.FeedStatus> {
    return callUnary(this.client, this.client.getFeedStatus, {});
  }

  /** Each feed status as the events service takes it on; open until it ends, fails or is cancelled (no deadline). */
  watchFeedStatus(): ClientReadableStream<events.FeedStatus> {
    return this.client.watchFeedStatus({}, new Metadata(), { deadline: Infinity });
  }
}
