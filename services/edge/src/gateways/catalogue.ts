import { callUnary } from "@odds/platform";
import type { catalogue, common } from "@odds/proto";

/** The edge's only door to the catalogue service. */
export class CatalogueGateway {
  constructor(private readonly client: catalogue.CatalogueServiceClient) {}

  listSports(request: catalogue.ListSportsRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listSports, request);
  }

  listLeagues(request: catalogue.ListLeaguesRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listLeagues, request);
  }

  listTeams(request: catalogue.ListTeamsRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listTeams, request);
  }

  listPlayers(request: catalogue.ListPlayersRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listPlayers, request);
  }

  listStats(request: catalogue.ListStatsRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listStats, request);
  }

  listMarkets(request: catalogue.ListMarketsRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listMarkets, request);
  }

  listBookmakers(request: catalogue.ListBookmakersRequest): Promise<common.JsonPage> {
    return callUnary(this.client, this.client.listBookmakers, request);
  }
}
