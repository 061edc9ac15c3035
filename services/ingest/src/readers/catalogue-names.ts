// The catalogue service's read RPCs as the name matcher's CatalogueNames: every team and player of
// a league, paged to the end, read as an internal caller (every league visible).
import { callUnary, createGrpcClient } from "@odds/platform";
import { catalogue, common, objects, pageLimits } from "@odds/proto";
import type { FeedPlayer, FeedTeam } from "../sources/feed-source";
import type { CatalogueNames } from "../sources/matching/name-matcher";

const INGEST_CALLER = common.Caller.fromPartial({
  keyId: "ingest",
  tier: "internal",
  allSports: true,
  allLeagues: true,
  allBookmakers: true,
  fairOdds: true,
});

/** Guards against a cursor that never ends (each page is at most the route's maximum). */
const MAX_PAGES = 1_000;

export class GrpcCatalogueNames implements CatalogueNames {
  private readonly client: catalogue.CatalogueServiceClient;

  constructor(options: { catalogueAddr: string; deadlineMs: number }) {
    this.client = createGrpcClient(catalogue.CatalogueServiceClient, options.catalogueAddr, {
      defaultDeadlineMs: options.deadlineMs,
      retryUnavailable: true,
    });
  }

  async league(leagueID: string): Promise<{ teams: FeedTeam[]; players: FeedPlayer[] }> {
    const [teams, players] = await Promise.all([
      this.all((cursor) =>
        callUnary(
          this.client,
          this.client.listTeams,
          catalogue.ListTeamsRequest.fromPartial({
            caller: INGEST_CALLER,
            leagueIds: [leagueID],
            limit: pageLimits.PAGE_LIMITS.teams.max,
            cursor,
          }),
        ),
      ),
      this.all((cursor) =>
        callUnary(
          this.client,
          this.client.listPlayers,
          catalogue.ListPlayersRequest.fromPartial({
            caller: INGEST_CALLER,
            leagueIds: [leagueID],
            limit: pageLimits.PAGE_LIMITS.players.max,
            cursor,
          }),
        ),
      ),
    ]);
    return {
      teams: teams.map((item) => feedTeam(objects.team.parse(item))),
      players: players.map((item) => feedPlayer(objects.player.parse(item))),
    };
  }

  close(): void {
    this.client.close();
  }

  /** Every item of a paged read, parsed from its JSON. */
  private async all(page: (cursor: string) => Promise<common.JsonPage>): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor = "";
    for (let n = 0; n < MAX_PAGES; n++) {
      const answer = await page(cursor);
      for (const item of answer.items) items.push(JSON.parse(Buffer.from(item).toString("utf8")));
      if (!answer.nextCursor) return items;
      cursor = answer.nextCursor;
    }
    throw new Error(`catalogue paging did not end after ${MAX_PAGES} pages`);
  }
}

function feedTeam(team: ReturnType<typeof objects.team.parse>): FeedTeam {
  return {
    teamID: team.teamID,
    long: team.names.long,
    medium: team.names.medium,
    short: team.names.short,
    primaryColor: team.colors.primary ?? "",
    secondaryColor: team.colors.secondary ?? "",
  };
}

function feedPlayer(player: ReturnType<typeof objects.player.parse>): FeedPlayer {
  return {
    playerID: player.playerID,
    teamID: player.teamID,
    name: player.name,
    firstName: player.firstName,
    lastName: player.lastName,
    position: player.position ?? "",
    jerseyNumber: player.jerseyNumber ?? 0,
  };
}
