import { callUnary } from "@odds/platform";
import type { events } from "@odds/proto";

export type PipelineState = "healthy" | "stale" | "empty";

/** The ingest pipeline as /health reports it: empty before the first cycle, stale when cycles stopped. */
export function pipelineState(lastCycleAtMs: number, nowMs: number, staleAfterMs: number): PipelineState {
  if (lastCycleAtMs <= 0) return "empty";
  return nowMs - lastCycleAtMs > staleAfterMs ? "stale" : "healthy";
}

export interface HealthReport {
  status: "ok" | "degraded";
  timestamp: string;
  version: string;
  uptimeSeconds: number;
  pipeline: PipelineState;
  /** Extension: whether rate limiting is being enforced (Redis reachable). */
  rateLimiter: "ok" | "unavailable";
}

export interface HealthSources {
  version: string;
  startedAtMs: number;
  staleAfterMs: number;
  events: events.EventsServiceClient;
  rateLimiterReachable: () => boolean;
}

/** Builds the Health body; a downstream failure degrades the report instead of failing the probe. */
export async function healthReport(sources: HealthSources, nowMs = Date.now()): Promise<HealthReport> {
  // When the events service cannot say, freshness is unconfirmed: reported as stale.
  let pipeline: PipelineState = "stale";
  let eventsReachable = true;
  try {
    const feed = await callUnary(sources.events, sources.events.getFeedStatus, {}, { deadline: nowMs + 2_000 });
    pipeline = pipelineState(feed.lastCycleAtMs, nowMs, sources.staleAfterMs);
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
