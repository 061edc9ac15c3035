// The downstream write RPCs. Every call has a deadline and grpc-js retries UNAVAILABLE; on top,
// cockatiel retries other transient failures a few times before the runner keeps the write queued.
import { status, type ServiceError } from "@grpc/grpc-js";
import { callUnary, createGrpcClient } from "@odds/platform";
import { catalogue, events, history } from "@odds/proto";
import { ExponentialBackoff, handleWhen, retry, type IPolicy } from "cockatiel";
import type { AppliedCycle, CycleSink } from "../cycle-runner";
import type { BookObservation, CatalogueContent, EventRef, EventState } from "../domain/model";
import type { EventStamps } from "../domain/observation-stamps";
import { applyCatalogueRequest, applyCycleRequest, recordQuotesRequest } from "./messages";

const TRANSIENT = new Set<number>([
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.RESOURCE_EXHAUSTED,
  status.ABORTED,
  status.INTERNAL,
  status.UNKNOWN,
]);

/** The write clients' keepalive timeout (see `createGrpcClient`). */
const SINK_KEEPALIVE_TIMEOUT_MS = 30_000;

export interface GrpcSinkOptions {
  eventsAddr: string;
  historyAddr: string;
  catalogueAddr: string;
  deadlineMs: number;
  /** cockatiel attempts per write (grpc-js retries UNAVAILABLE inside each). */
  maxAttempts?: number;
}

export class GrpcCycleSink implements CycleSink {
  private readonly events: events.EventsServiceClient;
  private readonly history: history.HistoryServiceClient;
  private readonly catalogue: catalogue.CatalogueServiceClient;
  private readonly policy: IPolicy;

  constructor(options: GrpcSinkOptions) {
    // Ingest holds its event loop for seconds while it builds and encodes a cycle (minutes on a loaded
    // machine): with the default 5 s keepalive timeout it dropped its own connections with calls in flight
    // ("Connection dropped"). A vanished peer is still found within 40 s, far inside a write's deadline.
    const common = {
      defaultDeadlineMs: options.deadlineMs,
      retryUnavailable: true,
      keepaliveTimeoutMs: SINK_KEEPALIVE_TIMEOUT_MS,
    };
    this.events = createGrpcClient(events.EventsServiceClient, options.eventsAddr, common);
    this.history = createGrpcClient(history.HistoryServiceClient, options.historyAddr, common);
    this.catalogue = createGrpcClient(catalogue.CatalogueServiceClient, options.catalogueAddr, common);
    this.policy = retry(
      handleWhen((err) => TRANSIENT.has((err as Partial<ServiceError>).code ?? status.UNKNOWN)),
      {
        maxAttempts: (options.maxAttempts ?? 3) - 1,
        backoff: new ExponentialBackoff({ initialDelay: 250, maxDelay: 4000 }),
      },
    );
  }

  async applyEvents(
    cycleID: string,
    observedAtMs: number,
    batch: EventState[],
    restamped: readonly EventStamps[] = [],
  ): Promise<{ unknownEventIDs: string[] }> {
    const request = applyCycleRequest(cycleID, observedAtMs, batch, restamped);
    const response = await this.policy.execute(() => callUnary(this.events, this.events.applyCycle, request));
    return { unknownEventIDs: response.unknownEventIds };
  }

  async recordQuotes(refs: EventRef[], observations: BookObservation[]): Promise<void> {
    const request = recordQuotesRequest(refs, observations);
    await this.policy.execute(() => callUnary(this.history, this.history.recordQuotes, request));
  }

  async applyCatalogue(cycleID: string, content: CatalogueContent): Promise<void> {
    const request = applyCatalogueRequest(cycleID, content);
    await this.policy.execute(() => callUnary(this.catalogue, this.catalogue.applyCatalogue, request));
  }

  async lastAppliedCycle(): Promise<AppliedCycle> {
    const feed = await this.policy.execute(() => callUnary(this.events, this.events.getFeedStatus, {}));
    return { atMs: feed.lastCycleAtMs, cycleID: feed.lastCycleId, observedAtMs: feed.lastCycleObservedAtMs };
  }

  close(): void {
    this.events.close();
    this.history.close();
    this.catalogue.close();
  }
}
