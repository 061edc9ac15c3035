import { LEAGUES, type FixtureLeague, type FixtureTeam } from "./fixtures";
import { unit } from "./random";
import { matchDaySquad } from "./squads";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Monday 2026-01-05 00:00 UTC: week 0 of the simulated calendar. */
const CALENDAR_ANCHOR_MS = Date.UTC(2026, 0, 5);

export interface ScheduledEvent {
  eventID: string;
  league: FixtureLeague;
  home: FixtureTeam;
  away: FixtureTeam;
  /** Published kickoff. */
  startsAtMs: number;
  /** Actual start: later than startsAtMs for a delayed event. */
  actualStartMs: number;
  delayed: boolean;
  /** When the cancellation was announced; undefined if the event goes ahead. */
  cancelledAtMs?: number;
}

/** teamID = `<TEAM_NAME>_<leagueID>` in upper case. */
export function teamID(team: FixtureTeam, league: FixtureLeague): string {
  return `${upperToken(team.long)}_${league.leagueID}`;
}

export function upperToken(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/&/g, "AND")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .toUpperCase();
}

export function slug(text: string): string {
  return upperToken(text).toLowerCase();
}

/** Circle-method round robin: the pairs of round `round` for n teams (a bye when n is odd). */
function roundPairs(teamCount: number, round: number): Array<[number, number]> {
  const n = teamCount % 2 === 0 ? teamCount : teamCount + 1;
  const rotation = Array.from({ length: n - 1 }, (_, i) => 1 + ((i + round) % (n - 1)));
  const order = [0, ...rotation];
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < n / 2; i++) {
    const a = order[i] ?? 0;
    const b = order[n - 1 - i] ?? 0;
    if (a >= teamCount || b >= teamCount) continue;
    pairs.push(round % 2 === 0 ? [a, b] : [b, a]);
  }
  return pairs;
}

function slotStartMs(week: number, slot: [number, string]): number {
  const [dayOfWeek, hhmm] = slot;
  const [hh = 0, mm = 0] = hhmm.split(":").map(Number);
  const dayOffset = (dayOfWeek + 6) % 7;
  return CALENDAR_ANCHOR_MS + week * WEEK_MS + dayOffset * DAY_MS + (hh * 60 + mm) * 60_000;
}

function scheduledEvent(seed: string, league: FixtureLeague, week: number, slotIndex: number): ScheduledEvent {
  const gamesPerRound = Math.floor(league.teams.length / 2);
  const gameIndex = week * league.slots.length + slotIndex;
  const round = Math.floor(gameIndex / gamesPerRound);
  const pairs = roundPairs(league.teams.length, round);
  const [homeIndex, awayIndex] = pairs[gameIndex % gamesPerRound] ?? [0, 1];
  const home = matchDayTeam(league, league.teams[homeIndex]);
  const away = matchDayTeam(league, league.teams[awayIndex]);
  const slot = league.slots[slotIndex];
  if (!home || !away || !slot) throw new Error(`league ${league.leagueID}: fixture ${gameIndex} is out of range`);
  const startsAtMs = slotStartMs(week, slot);
  const date = new Date(startsAtMs).toISOString().slice(0, 10);
  const eventID = `${league.prefix}_${date}_${slug(home.medium)}_vs_${slug(away.medium)}`;
  const fate = unit(seed, "fate", eventID);
  const cancelled = fate < 0.02;
  const delayed = !cancelled && fate < 0.06;
  const delayMinutes = delayed ? 15 + Math.floor(unit(seed, "delay", eventID) * 35) : 0;
  return {
    eventID,
    league,
    home,
    away,
    startsAtMs,
    actualStartMs: startsAtMs + delayMinutes * 60_000,
    delayed,
    cancelledAtMs: cancelled
      ? startsAtMs - (2 + Math.floor(unit(seed, "cancel", eventID) * 20)) * 3_600_000
      : undefined,
  };
}

function matchDayTeam(league: FixtureLeague, team: FixtureTeam | undefined): FixtureTeam | undefined {
  return team && matchDaySquad(league, team);
}

/** Every scheduled event of the league whose published kickoff lies in [fromMs, toMs). */
export function eventsBetween(seed: string, league: FixtureLeague, fromMs: number, toMs: number): ScheduledEvent[] {
  const firstWeek = Math.floor((fromMs - CALENDAR_ANCHOR_MS) / WEEK_MS) - 1;
  const lastWeek = Math.floor((toMs - CALENDAR_ANCHOR_MS) / WEEK_MS) + 1;
  const events: ScheduledEvent[] = [];
  for (let week = Math.max(0, firstWeek); week <= lastWeek; week++) {
    for (let slotIndex = 0; slotIndex < league.slots.length; slotIndex++) {
      const event = scheduledEvent(seed, league, week, slotIndex);
      if (event.startsAtMs >= fromMs && event.startsAtMs < toMs) events.push(event);
    }
  }
  return events.sort((a, b) => a.startsAtMs - b.startsAtMs || a.eventID.localeCompare(b.eventID));
}

export function allLeagues(): FixtureLeague[] {
  return LEAGUES;
}
