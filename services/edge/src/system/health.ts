import { callDeadline } from "@odds/platform";
import { staleness, type events, type objects } from "@odds/proto";

/** A probe must answer quickly even when the events service hangs. */
const FEED_STATUS_DEADLINE = callDeadline(2_000);

export type PipelineState = "healthy" | "stale" | "empty";

/**
 * The ingest pipeline as /health reports it: empty before the first cycle, stale after the contract's
 * 45 minutes without a source write (ingest applies a cycle only when some source wrote since the last).
 */
export function pipelineState(lastCycleAtMs: number, nowMs: number): PipelineState {
  if (lastCycleAtMs <= 0) return "empty";
  return staleness.isStale(lastCycleAtMs, nowMs) ? "stale" : "healthy";
}

export type HealthReport = objects.Health;

export interface HealthSources {
  version: string;
  startedAtMs: number;
  /** The events service's last applied ingest cycle (EventsGateway.feedStatus). */
  feedStatus: () => Promise<events.FeedStatus>;
  rateLimiterReachable: () => boolean;
}

/** Builds the Health body; a downstream failure degrades the report instead of failing the probe. */
export async function healthReport(sources: HealthSources, nowMs = Date.now()): Promise<HealthReport> {
  // When the events service cannot say, freshness is unconfirmed: reported as stale.
  let pipeline: PipelineState = "stale";
  let eventsReachable = true;
  try {
    const feed = await FEED_STATUS_DEADLINE.execute(() => sources.feedStatus());
    pipeline = pipelineState(feed.lastCycleAtMs, nowMs);
  } catch {
    eventsReachable = false;
  }
  const rateLimiter = sources.rateLimiterReachable() ? "ok" : "unavailable";
  return {
    status: eventsReachable && pipeline !== "stale" && rateLimiter === "ok" ? "ok" : "degraded",
    timestamp: new Date(nowMs).toISOString(),
    version: sources.version,
    uptimeSeconds: Math.floor((nowMs - sources.startedAtMs) / 1000),
    pipeline,
    rateLimiter,
  };
}
