import { unaryHandler } from "@odds/platform";
import type { catalogue } from "@odds/proto";
import type { Logger } from "pino";

const emptyPage = { items: [], nextCursor: "", notice: "" };

/** Thin adapter: RPC messages in, domain calls, rendered contract objects out. */
export function catalogueRpc(logger: Logger): catalogue.CatalogueServiceServer {
  return {
    listSports: unaryHandler(logger, async () => emptyPage),
    listLeagues: unaryHandler(logger, async () => emptyPage),
    listTeams: unaryHandler(logger, async () => emptyPage),
    listPlayers: unaryHandler(logger, async () => emptyPage),
    listStats: unaryHandler(logger, async () => emptyPage),
    listMarkets: unaryHandler(logger, async () => emptyPage),
    applyCatalogue: unaryHandler(logger, async () => ({})),
  };
}
