import { unaryHandler } from "@odds/platform";
import { common, events } from "@odds/proto";
import type { Logger } from "pino";

/** Thin adapter from EventsService RPC messages to the domain (walking skeleton). */
export function eventsRpc(logger: Logger): events.EventsServiceServer {
  return {
    listEvents: unaryHandler(logger, async () => common.JsonPage.create()),
    applyCycle: unaryHandler(logger, async (req: events.ApplyCycleRequest) =>
      events.ApplyCycleResponse.create({ upserted: 0, unchanged: req.events.length }),
    ),
    getFeedStatus: unaryHandler(logger, async () => events.FeedStatus.create()),
  };
}
