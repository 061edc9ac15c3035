import {
  callUnary,
  connectMongo,
  createGrpcClient,
  startGrpcServer,
  type MongoStore,
  type RunningGrpcServer,
} from "@odds/platform";
import { testMongoUri } from "@odds/local";
import { catalogue, common, v1 } from "@odds/proto";
import pino from "pino";
import { catalogueRpc, catalogueServiceDefinition } from "../src/rpc";
import { PersistedCatalogue } from "../src/persisted-catalogue";
import { CatalogueStore } from "../src/store";

export const logger = pino({ level: "silent" });

/** A catalogue service on its own test database behind a real gRPC server and client. */
export interface CatalogueHarness {
  mongo: MongoStore;
  store: CatalogueStore;
  service: PersistedCatalogue;
  server: RunningGrpcServer;
  client: catalogue.CatalogueServiceClient;
  /** Moves the service's clock (for the dropped-out expiry). */
  clock: { now: number };
  apply(request: Partial<catalogue.ApplyCatalogueRequest>): Promise<void>;
  // Contract objects parsed from JSON: tests assert on their fields.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  list(method: ListMethod, request: object): Promise<{ items: any[]; nextCursor: string }>;
  /** One page as answered: its items parsed, its tag, and whether it came back unchanged (no items). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tagged(method: ListMethod, request: object): Promise<{ items: any[]; tag: string; unchanged: boolean }>;
  stop(): Promise<void>;
}

export type ListMethod = "listSports" | "listLeagues" | "listTeams" | "listPlayers" | "listStats" | "listMarkets";

const REQUESTS: Record<ListMethod, { fromPartial(request: object): unknown }> = {
  listSports: catalogue.ListSportsRequest,
  listLeagues: catalogue.ListLeaguesRequest,
  listTeams: catalogue.ListTeamsRequest,
  listPlayers: catalogue.ListPlayersRequest,
  listStats: catalogue.ListStatsRequest,
  listMarkets: catalogue.ListMarketsRequest,
};

export async function startCatalogue(
  options: { uri?: string; eventTtlMs?: number; marketViewBytes?: number } = {},
): Promise<CatalogueHarness> {
  const uri = options.uri ?? testMongoUri("catalogue");
  const mongo = await connectMongo(uri, { appName: "catalogue-test", logger });
  const store = new CatalogueStore(mongo.db);
  const clock = { now: Date.parse("2026-11-01T00:00:00Z") };
  const service = await PersistedCatalogue.open(store, logger, {
    eventTtlMs: options.eventTtlMs ?? 30 * 60_000,
    ...(options.marketViewBytes !== undefined ? { marketViewBytes: options.marketViewBytes } : {}),
    now: () => clock.now,
  });
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        name: "odds.catalogue.v1.PersistedCatalogue",
        definition: catalogueServiceDefinition,
        implementation: catalogueRpc(service, logger, new v1.HistoryStarts(v1.DEFAULT_CONVERTED_LEAGUES)),
      },
    ],
  });
  const client = createGrpcClient(catalogue.CatalogueServiceClient, `127.0.0.1:${server.port}`, {
    defaultDeadlineMs: 10_000,
  });
  const listPage = (method: ListMethod, request: object) =>
    callUnary(
      client,
      client[method] as (typeof client)["listTeams"],
      REQUESTS[method].fromPartial(request) as catalogue.ListTeamsRequest,
    );
  return {
    mongo,
    store,
    service,
    server,
    client,
    clock,
    async apply(request) {
      await callUnary(client, client.applyCatalogue, catalogue.ApplyCatalogueRequest.fromPartial(request));
    },
    async list(method, request) {
      const page = await listPage(method, request);
      return { items: page.items.map(parseItem), nextCursor: page.nextCursor };
    },
    async tagged(method, request) {
      const page = await listPage(method, request);
      return { items: page.items.map(parseItem), tag: page.tag ?? "", unchanged: page.unchanged ?? false };
    },
    async stop() {
      client.close();
      await server.shutdown(1_000);
      await mongo.close();
    },
  };
}

function parseItem(item: Uint8Array): unknown {
  return JSON.parse(Buffer.from(item).toString("utf8"));
}

/** Plans as the edge sends them. */
export const callers = {
  everything: common.Caller.fromPartial({ tier: "internal", allSports: true, allLeagues: true, allBookmakers: true }),
  /** Aussie rules only, one bookmaker. */
  aflOnly: common.Caller.fromPartial({
    tier: "lite",
    sportIds: ["AUSSIE_RULES"],
    allLeagues: true,
    bookmakerIds: ["sportsbet"],
  }),
  /** Every sport, but only the NRL league and two bookmakers. */
  nrlOnly: common.Caller.fromPartial({
    tier: "base",
    allSports: true,
    leagueIds: ["NRL"],
    bookmakerIds: ["tab", "sportsbet"],
  }),
};
