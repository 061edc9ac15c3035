import type { DownstreamClients } from "../gateways/clients";
import type { ReadBounds, RouteDefinition } from "../http/route";
import { catalogueRoutes } from "./catalogue";
import { eventsRoutes, heavyEventPages } from "./events";
import { historyRoutes } from "./history";

/**
 * Every keyed data route of the public API. Each resource module exports a factory
 * `xxxRoutes(clients, bounds)` returning its RouteDefinitions; add its spread here.
 */
export function dataRoutes(clients: DownstreamClients, bounds: ReadBounds): RouteDefinition[] {
  return [...eventsRoutes(clients, bounds), ...catalogueRoutes(clients, bounds), ...historyRoutes(clients)];
}

/** One edge's read bounds, shared by its v2 and v1 routes; a heavy page takes at most `heavyPageMaxMs`. */
export function readBounds(heavyPageMaxMs: number): ReadBounds {
  return { heavyPageMaxMs, eventPages: heavyEventPages(heavyPageMaxMs) };
}
