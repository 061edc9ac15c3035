import type { DownstreamClients } from "../../gateways/clients";
import type { ReadBounds } from "../../http/route";
import type { V1Route } from "../route";
import { v1CatalogueRoutes } from "./catalogue";
import { v1EventsRoutes } from "./events";
import { v1HistoryRoutes } from "./history";
import { v1HistoryFilesRoutes } from "./history-files";
import { HistoryGateway } from "../../gateways/history";

/** Every route of the v1 preview, over the same services (and within the same read bounds) as v2. */
export function v1Routes(clients: DownstreamClients, bounds: ReadBounds): V1Route[] {
  return [
    ...v1CatalogueRoutes(clients),
    ...v1EventsRoutes(clients, bounds),
    ...v1HistoryRoutes(clients),
    ...v1HistoryFilesRoutes(new HistoryGateway(clients.history)),
  ];
}
