import { objects } from "@odds/proto";
import { z } from "zod";
import { FreshKeyReads } from "../access/fresh-key-reads";
import type { UsageGateway } from "../gateways/usage";
import { notImplemented } from "../http/errors";
import { defineOpenRoute, defineRoute, type RouteDefinition } from "../http/route";
import type { RateLimiter } from "../ratelimit/rate-limiter";
import { healthReport, type HealthSources } from "../system/health";
import { loadAccountUsage } from "./account";

export interface SystemRouteSources {
  health: HealthSources;
  usage: UsageGateway;
  limiter: RateLimiter;
}

/** The routes the edge answers itself, defined and mounted like the data routes. */
export function systemRoutes(sources: SystemRouteSources): RouteDefinition[] {
  const keyReads = new FreshKeyReads(sources.usage);
  return [
    defineOpenRoute({
      path: "/health",
      summary: "Service health",
      description:
        "No key needed. `pipeline` is empty before the first ingest cycle and stale after 45 minutes without a source write (the contract's staleness flag, as info.stale).",
      tag: "System",
      keyed: false,
      query: z.object({}),
      item: objects.health,
      data: "object",
      errors: [],
      lenientParameters: true,
      load: async () => ({ object: await healthReport(sources.health) }),
    }),
    defineRoute({
      path: "/account/usage",
      summary: "The calling key's tier, rate limits and usage",
      description: "The call itself counts as a request.",
      tag: "Account",
      query: z.object({}),
      item: objects.accountUsage,
      errors: [404],
      lenientParameters: true,
      load: (_params, grant, admitted) => loadAccountUsage(grant, keyReads, sources.limiter, admitted),
    }),
    defineRoute({
      path: "/stream/events",
      summary: "Event stream (not implemented in v2)",
      description: "The key is checked first; then always 501 Not Implemented. No socket is opened.",
      tag: "Events",
      query: z.object({
        feed: z.enum(["events:live", "events:upcoming", "events:byid"]).optional(),
        leagueID: z.string().optional(),
        eventID: z.string().optional(),
      }),
      data: "none",
      errors: [501],
      lenientParameters: true,
      load: () => Promise.reject(notImplemented()),
    }),
  ] as RouteDefinition[];
}
