// Human-readable names of markets, periods and stats.
import type { oddId } from "@odds/proto";

type OddIdParts = oddId.OddIdParts;

const PERIOD_NAMES: Record<string, { short: string; long: string }> = {
  game: { short: "Game", long: "Full Game" },
  "1h": { short: "1H", long: "1st Half" },
  "2h": { short: "2H", long: "2nd Half" },
  "1q": { short: "Q1", long: "1st Quarter" },
  "2q": { short: "Q2", long: "2nd Quarter" },
  "3q": { short: "Q3", long: "3rd Quarter" },
  "4q": { short: "Q4", long: "4th Quarter" },
  "1i": { short: "1st Inn", long: "1st Innings" },
  "2i": { short: "2nd Inn", long: "2nd Innings" },
  "1ix6": { short: "1st Inn 6 Ov", long: "1st Innings Powerplay (6 overs)" },
  "1s": { short: "S1", long: "1st Set" },
  "2s": { short: "S2", long: "2nd Set" },
  "3s": { short: "S3", long: "3rd Set" },
};

const STAT_NAMES: Record<string, { short: string; long: string }> = {
  points: { short: "Pts", long: "Points" },
  margin: { short: "Margin", long: "Winning Margin" },
  bothteamstoscore: { short: "BTTS", long: "Both Teams To Score" },
  disposals: { short: "Disp", long: "Disposals" },
  goals: { short: "Goals", long: "Goals" },
  behinds: { short: "Behinds", long: "Behinds" },
  tries: { short: "Tries", long: "Tries" },
  shotsontarget: { short: "SOT", long: "Shots On Target" },
  wickets: { short: "Wkts", long: "Wickets" },
  marks: { short: "Marks", long: "Marks" },
  tackles: { short: "Tackles", long: "Tackles" },
  saves: { short: "Saves", long: "Saves" },
  cards: { short: "Cards", long: "To Be Carded" },
  firsttryscorer: { short: "FTS", long: "First Try Scorer" },
  games: { short: "Games", long: "Games" },
  method: { short: "Method", long: "Method of Victory" },
  rounds: { short: "Rounds", long: "Total Rounds" },
  distance: { short: "Distance", long: "Fight Goes the Distance" },
};

/** Player yes/no markets that are not "anytime" ones. */
const ONE_OFF_STATS = new Set(["firsttryscorer", "cards"]);

const titleCase = (token: string) =>
  token
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");

export function periodName(periodID: string): { short: string; long: string } {
  return PERIOD_NAMES[periodID] ?? { short: periodID.toUpperCase(), long: titleCase(periodID) };
}

export function statName(statID: string): { short: string; long: string } {
  return STAT_NAMES[statID] ?? { short: titleCase(statID), long: titleCase(statID) };
}

/** e.g. "Moneyline", "1st Quarter Over/Under", "Nick Daicos Disposals Over/Under", "Carlton Blues Team Total". */
export function marketName(
  parts: OddIdParts,
  context: { playerName?: string; teamName?: string; sportID: string },
): string {
  const period = parts.periodID === "game" ? "" : `${periodName(parts.periodID).long} `;
  const stat = context.sportID === "CRICKET" && parts.statID === "points" ? "Runs" : statName(parts.statID).long;
  if (context.playerName) {
    const kind =
      parts.betTypeID !== "yn"
        ? `${stat} Over/Under`
        : ONE_OFF_STATS.has(parts.statID)
          ? `${stat} Yes/No`
          : `Anytime ${stat} Yes/No`;
    return `${context.playerName} ${period}${kind}`;
  }
  switch (parts.betTypeID) {
    case "ml":
      return parts.statID === "points" ? `${period}Moneyline` : `${period}${stat} Moneyline`;
    case "ml3way":
      return `${period}3-Way Moneyline`;
    case "sp":
      if (parts.statID === "games") return `${period}Game Handicap`;
      return `${period}${parts.statID === "points" && context.sportID === "SOCCER" ? "Asian Handicap" : "Line"}`;
    case "cs":
      return `${period}${context.sportID === "TENNIS" ? "Set Betting" : "Correct Score"}`;
    case "ou":
      if (parts.statEntityID === "home" || parts.statEntityID === "away")
        return `${context.teamName ?? titleCase(parts.statEntityID)} ${period}Team Total`;
      if (parts.statID === "games") return `${period}Total Games Over/Under`;
      return `${period}${parts.statID === "points" ? (context.sportID === "CRICKET" ? "Runs" : "Total") : stat} Over/Under`;
    case "eo":
      return `${period}Total Odd/Even`;
    case "yn":
      return `${period}${stat}`;
    case "pick":
      if (context.teamName && context.sportID === "CRICKET" && parts.statID === "points")
        return `${context.teamName} ${period}Top Batter`;
      return `${period}${stat}`;
    default:
      return `${period}${stat} ${parts.betTypeID.toUpperCase()}`;
  }
}
