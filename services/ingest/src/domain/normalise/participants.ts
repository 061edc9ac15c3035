// Teams and players of an event as the contract shows them.
import type { FeedEvent, FeedTeam } from "../../sources/feed-source";
import type { EventPlayerState, TeamState } from "../model";

/** Black or white, whichever reads better on the given colour (WCAG relative luminance). */
export function contrastColor(hex: string): string {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!match?.[1]) return "#FFFFFF";
  const channel = (offset: number) => {
    const c = parseInt(match[1]?.slice(offset, offset + 2) ?? "00", 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return luminance > 0.179 ? "#000000" : "#FFFFFF";
}

export function teamState(feedTeam: FeedTeam, side: "home" | "away"): TeamState {
  return {
    teamID: feedTeam.teamID,
    names: { long: feedTeam.long, medium: feedTeam.medium, short: feedTeam.short },
    colors: {
      primary: feedTeam.primaryColor,
      secondary: feedTeam.secondaryColor,
      primaryContrast: contrastColor(feedTeam.primaryColor),
      secondaryContrast: contrastColor(feedTeam.secondaryColor),
    },
    statEntityID: side,
    score: feedTeam.score,
  };
}

export function eventPlayers(event: FeedEvent): Record<string, EventPlayerState> {
  return Object.fromEntries(
    event.players.map((p) => [
      p.playerID,
      {
        playerID: p.playerID,
        teamID: p.teamID,
        name: p.name,
        firstName: p.firstName,
        lastName: p.lastName,
        position: p.position,
        jerseyNumber: p.jerseyNumber,
      },
    ]),
  );
}
