import type { DownstreamClients } from "../gateways/clients";
import type { RouteDefinition } from "../http/route";
import { catalogueRoutes } from "./catalogue";
import { eventsRoutes } from "./events";
import { historyRoutes } from "./history";

/**
 * Every keyed data route of the public API. Each resource module exports a factory
 * `xxxRoutes(clients)` returning its RouteDefinitions; add its spread here.
 */
export function dataRoutes(clients: DownstreamClients): RouteDefinition[] {
  return [...eventsRoutes(clients), ...catalogueRoutes(clients), ...historyRoutes(clients)];
}
