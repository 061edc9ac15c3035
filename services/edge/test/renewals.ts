import { createLogger, startGrpcServer, unaryHandler, type GrpcServiceBinding } from "@odds/platform";
import { common } from "@odds/proto";
import type { KeyGrant } from "../src/access/api-key";
import { closeDownstreamClients, createDownstreamClients, type DownstreamClients } from "../src/gateways/clients";

/** The page a `PageService` answers, under its tag. */
const PAGE = common.JsonPage.create({ items: [Buffer.from('{"id":"a"}')], tag: "page-1" });

/** A downstream service over real gRPC whose list methods answer one tagged page, or `unchanged` when named its tag. */
export interface PageService {
  clients: DownstreamClients;
  /** Every call, in order: the method and the tag it named. */
  received: { method: string; ifTag: string | undefined }[];
  stop(): Promise<void>;
}

export async function startPageService(
  binding: Pick<GrpcServiceBinding, "name" | "definition">,
  methods: string[],
): Promise<PageService> {
  const logger = createLogger("edge-renewals-test", "silent");
  const received: PageService["received"] = [];
  const implementation = Object.fromEntries(
    methods.map((method) => [
      method,
      unaryHandler(logger, async (request: { ifTag?: string }) => {
        received.push({ method, ifTag: request.ifTag });
        return request.ifTag === PAGE.tag ? common.JsonPage.create({ tag: PAGE.tag, unchanged: true }) : PAGE;
      }),
    ]),
  );
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [{ ...binding, implementation }],
  });
  const address = `127.0.0.1:${server.port}`;
  const clients = createDownstreamClients(
    { events: address, history: address, catalogue: address, usage: address },
    2_000,
  );
  return {
    clients,
    received,
    async stop() {
      closeDownstreamClients(clients);
      await server.shutdown(1_000);
    },
  };
}

/**
 * Loads a route's page three times against a `PageService`: afresh (names no tag, gets the page and its tag), naming
 * the page's tag (the service's `unchanged` comes back as unchanged) and naming another tag (gets the page). `load`
 * is the route's load with the tag it names.
 */
export async function expectRenewals(load: (heldTag?: string) => Promise<object>, service: PageService) {
  const first = await load();
  expect(service.received.at(-1)!.ifTag).toBeUndefined();
  expect(first).toMatchObject({ tag: PAGE.tag, nextCursor: null });
  expect((first as { items: Uint8Array[] }).items.map((item) => Buffer.from(item).toString())).toEqual(['{"id":"a"}']);

  const renewed = await load(PAGE.tag);
  expect(service.received.at(-1)!.ifTag).toBe(PAGE.tag);
  expect(renewed).toMatchObject({ items: [], unchanged: true });

  const stale = await load("page-0");
  expect(stale).toMatchObject({ tag: PAGE.tag });
  expect(stale).not.toHaveProperty("unchanged");
}

/** A key's grant on a plan that reads every league, as the edge hands it to a route. */
export const GRANT = { caller: common.Caller.create({ tier: "pro", allLeagues: true }) } as unknown as KeyGrant;
