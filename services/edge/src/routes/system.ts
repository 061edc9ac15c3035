import { z } from "zod";
import type { DocumentedRoute } from "../openapi/document";
import { accountUsageSchema } from "./account";

export const healthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    timestamp: z.string().meta({ format: "date-time" }),
    version: z.string(),
    uptimeSeconds: z.number().int(),
    pipeline: z.enum(["healthy", "stale", "empty"]),
    rateLimiter: z.enum(["ok", "unavailable"]).meta({ description: "extension: whether Redis is reachable" }),
  })
  .meta({ id: "Health" });

/** The routes the edge answers itself, documented beside the data routes. */
export function edgeRoutes(): DocumentedRoute[] {
  return [
    {
      path: "/health",
      summary: "Service health",
      description: "No key needed. `pipeline` is empty before the first ingest cycle and stale when cycles stopped.",
      tag: "System",
      keyed: false,
      query: z.object({}),
      item: healthSchema,
      data: "object",
      errors: [],
    },
    {
      path: "/account/usage",
      summary: "The calling key's tier, rate limits and usage",
      description: "The call itself counts as a request.",
      tag: "Account",
      keyed: true,
      query: z.object({}),
      item: accountUsageSchema,
      data: "list",
      errors: [404],
    },
    {
      path: "/stream/events",
      summary: "Event stream (not implemented in v2)",
      description: "The key is checked first; then always 501 Not Implemented. No socket is opened.",
      tag: "Events",
      keyed: true,
      query: z.object({
        feed: z.enum(["events:live", "events:upcoming", "events:byid"]).optional(),
        leagueID: z.string().optional(),
        eventID: z.string().optional(),
      }),
      data: "none",
      errors: [501],
    },
  ];
}
