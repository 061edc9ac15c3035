// Match-day squads: the named stars of each club (fixtures.ts) filled up to the number of players a
// side actually names on game day, so player markets cover the whole team as Australian books do.
import type { FixtureLeague, FixturePlayer, FixtureTeam, PlayerRole } from "./fixtures";
import { hash32 } from "./random";

interface SquadSlot {
  role: PlayerRole;
  position: string;
}

const slots = (count: number, role: PlayerRole, position: string): SquadSlot[] =>
  Array.from({ length: count }, () => ({ role, position }));

/**
 * A match-day squad per sport, in lineup order. AFL names 22 plus a substitute; NRL 13 plus four
 * interchange; soccer 11 plus seven on the bench; cricket an XI (IPL adds the impact player).
 */
const SQUAD_SHAPES: Record<string, SquadSlot[]> = {
  AUSSIE_RULES: [
    ...slots(8, "midfielder", "Midfielder"),
    ...slots(7, "forward", "Forward"),
    ...slots(7, "back", "Defender"),
    ...slots(1, "midfielder", "Substitute"),
  ],
  RUGBY_LEAGUE: [...slots(7, "back", "Back"), ...slots(10, "forward", "Forward")],
  SOCCER: [
    ...slots(1, "keeper", "Goalkeeper"),
    ...slots(4, "back", "Defender"),
    ...slots(4, "midfielder", "Midfielder"),
    ...slots(2, "forward", "Forward"),
    ...slots(1, "keeper", "Goalkeeper"),
    ...slots(3, "back", "Defender"),
    ...slots(2, "midfielder", "Midfielder"),
    ...slots(1, "forward", "Forward"),
  ],
  CRICKET: [...slots(7, "batter", "Batter"), ...slots(4, "bowler", "Bowler")],
};

/** Leagues whose squads run past the sport's usual size. */
const EXTRA_SLOTS: Record<string, SquadSlot[]> = {
  IPL: slots(1, "bowler", "Impact Player"),
};

const FIRST_NAMES =
  "Jack Tom Sam Josh Harry Lachlan Will Ben Max Riley Charlie Oliver Noah Liam Cooper Jordan Mitch Kane Darcy Zac Connor Luke Nathan Callum Ethan Hayden Isaac Jai Bailey Archie Dylan Tyson Brody Jesse Aidan Reece Rahul Arjun Karan Rohan Dev Mateo Lucas Joao Kenji Tane Sione Viliami".split(
    " ",
  );
const SURNAMES =
  "Walker Mitchell Campbell Stewart Robertson Kelly Ryan Murphy Taylor Clarke Hughes Bennett Fraser Gibson Henderson Lawson McKenzie Nolan Parker Quinn Reid Sullivan Thompson Vickery Wallace Young Brennan Cassidy Doyle Fletcher Gallagher Harding Irving Jarvis Keogh Lynch Maddox Nguyen O'Brien Pearce Rigby Sheridan Tuipulotu Fifita Patel Sharma Iyer Silva Costa Tanaka".split(
    " ",
  );

const squads = new Map<string, FixtureTeam>();

/** The team with its full match-day squad: named players first, generated squad members after. */
export function matchDaySquad(league: FixtureLeague, team: FixtureTeam): FixtureTeam {
  const key = `${league.leagueID}|${team.long}`;
  let full = squads.get(key);
  if (!full) {
    fillLeague(league);
    full = squads.get(key) ?? team;
  }
  return full;
}

/** Squads of a whole league at once, so a generated name is never taken twice in it (playerIDs stay unique). */
function fillLeague(league: FixtureLeague): void {
  const shape = [...(SQUAD_SHAPES[league.sportID] ?? []), ...(EXTRA_SLOTS[league.leagueID] ?? [])];
  const taken = new Set(league.teams.flatMap((team) => team.players.map((player) => player.name)));
  for (const team of league.teams) {
    const players = [...team.players];
    const numbers = new Set(players.map((player) => player.jerseyNumber));
    // Each slot the named players do not already fill (by role, in lineup order) gets a squad member.
    const open = [...shape];
    for (const player of players) {
      const index = open.findIndex((slot) => slot.role === player.role);
      if (index >= 0) open.splice(index, 1);
    }
    if (players.length >= shape.length) open.length = 0;
    else open.length = Math.min(open.length, shape.length - players.length);
    for (const [n, slot] of open.entries()) {
      const name = freshName(`${league.leagueID}|${team.long}|${n}`, taken);
      let jersey = 1 + (hash32(`${name}|jersey`) % 44);
      while (numbers.has(jersey)) jersey = (jersey % 99) + 1;
      numbers.add(jersey);
      players.push({ name, role: slot.role, position: slot.position, jerseyNumber: jersey } satisfies FixturePlayer);
    }
    squads.set(`${league.leagueID}|${team.long}`, { ...team, players });
  }
}

function freshName(key: string, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const h = hash32(`${key}|${attempt}`);
    const name = `${FIRST_NAMES[h % FIRST_NAMES.length]} ${SURNAMES[(h >>> 8) % SURNAMES.length]}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}
