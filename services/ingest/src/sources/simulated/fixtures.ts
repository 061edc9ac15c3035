// The simulated feed's reference data: real leagues, clubs, colours and well-known players.
// Rosters are a snapshot for realism, not a maintained list.
import { COMPETITOR_SPORTS } from "./competitors";

export type PlayerRole = "midfielder" | "forward" | "back" | "batter" | "bowler" | "keeper";

export interface FixturePlayer {
  name: string;
  role: PlayerRole;
  position: string;
  jerseyNumber: number;
}

export interface FixtureTeam {
  long: string;
  medium: string;
  short: string;
  colors: [primary: string, secondary: string];
  players: FixturePlayer[];
}

export interface FixtureLeague {
  leagueID: string;
  sportID: string;
  name: string;
  shortName: string;
  /** eventID prefix. */
  prefix: string;
  /** Weekly kickoff slots as [UTC day of week 0=Sun, "HH:MM" UTC]. */
  slots: Array<[number, string]>;
  teams: FixtureTeam[];
}

export interface FixtureSport {
  sportID: string;
  name: string;
  shortName: string;
}

export const SPORTS: FixtureSport[] = [
  { sportID: "AUSSIE_RULES", name: "Australian Rules Football", shortName: "Aussie Rules" },
  { sportID: "RUGBY_LEAGUE", name: "Rugby League", shortName: "Rugby League" },
  { sportID: "SOCCER", name: "Soccer", shortName: "Soccer" },
  { sportID: "CRICKET", name: "Cricket", shortName: "Cricket" },
  ...COMPETITOR_SPORTS.map((s) => s.sport),
];

const p = (name: string, role: PlayerRole, position: string, jerseyNumber: number): FixturePlayer => ({
  name,
  role,
  position,
  jerseyNumber,
});

const TEAM_LEAGUES: FixtureLeague[] = [
  {
    leagueID: "AFL",
    sportID: "AUSSIE_RULES",
    name: "Australian Football League",
    shortName: "AFL",
    prefix: "afl",
    slots: [
      [4, "08:30"],
      [5, "08:40"],
      [6, "02:45"],
      [6, "05:35"],
      [6, "08:30"],
      [6, "09:25"],
      [0, "02:20"],
      [0, "04:40"],
      [0, "06:20"],
    ],
    teams: [
      {
        long: "Adelaide Crows",
        medium: "Adelaide",
        short: "ADE",
        colors: ["#002B5C", "#E21937"],
        players: [
          p("Jordan Dawson", "midfielder", "Midfielder", 12),
          p("Izak Rankine", "forward", "Forward", 22),
          p("Taylor Walker", "forward", "Forward", 13),
        ],
      },
      {
        long: "Brisbane Lions",
        medium: "Brisbane",
        short: "BL",
        colors: ["#A30046", "#0055A3"],
        players: [
          p("Lachie Neale", "midfielder", "Midfielder", 9),
          p("Joe Daniher", "forward", "Forward", 1),
          p("Hugh McCluggage", "midfielder", "Midfielder", 6),
        ],
      },
      {
        long: "Carlton Blues",
        medium: "Carlton",
        short: "CAR",
        colors: ["#0E1E2D", "#FFFFFF"],
        players: [
          p("Patrick Cripps", "midfielder", "Midfielder", 9),
          p("Charlie Curnow", "forward", "Forward", 30),
          p("Harry McKay", "forward", "Forward", 10),
        ],
      },
      {
        long: "Collingwood Magpies",
        medium: "Collingwood",
        short: "COL",
        colors: ["#000000", "#FFFFFF"],
        players: [
          p("Nick Daicos", "midfielder", "Midfielder", 35),
          p("Jordan De Goey", "forward", "Forward", 2),
          p("Jamie Elliott", "forward", "Forward", 5),
        ],
      },
      {
        long: "Essendon Bombers",
        medium: "Essendon",
        short: "ESS",
        colors: ["#CC2031", "#000000"],
        players: [
          p("Zach Merrett", "midfielder", "Midfielder", 7),
          p("Kyle Langford", "forward", "Forward", 3),
          p("Peter Wright", "forward", "Forward", 20),
        ],
      },
      {
        long: "Fremantle Dockers",
        medium: "Fremantle",
        short: "FRE",
        colors: ["#2A1A54", "#FFFFFF"],
        players: [
          p("Caleb Serong", "midfielder", "Midfielder", 3),
          p("Andrew Brayshaw", "midfielder", "Midfielder", 8),
          p("Josh Treacy", "forward", "Forward", 26),
        ],
      },
      {
        long: "Geelong Cats",
        medium: "Geelong",
        short: "GEE",
        colors: ["#1C3C63", "#FFFFFF"],
        players: [
          p("Jeremy Cameron", "forward", "Forward", 5),
          p("Max Holmes", "midfielder", "Midfielder", 15),
          p("Bailey Smith", "midfielder", "Midfielder", 4),
        ],
      },
      {
        long: "Gold Coast Suns",
        medium: "Gold Coast",
        short: "GCS",
        colors: ["#D93E39", "#F4C316"],
        players: [
          p("Noah Anderson", "midfielder", "Midfielder", 13),
          p("Matt Rowell", "midfielder", "Midfielder", 10),
          p("Ben King", "forward", "Forward", 34),
        ],
      },
      {
        long: "GWS Giants",
        medium: "GWS",
        short: "GWS",
        colors: ["#F15C22", "#4A4F55"],
        players: [
          p("Tom Green", "midfielder", "Midfielder", 12),
          p("Jesse Hogan", "forward", "Forward", 23),
          p("Toby Greene", "forward", "Forward", 4),
        ],
      },
      {
        long: "Hawthorn Hawks",
        medium: "Hawthorn",
        short: "HAW",
        colors: ["#4D2004", "#FBBF15"],
        players: [
          p("Jai Newcombe", "midfielder", "Midfielder", 3),
          p("Jack Ginnivan", "forward", "Forward", 8),
          p("Mabior Chol", "forward", "Forward", 6),
        ],
      },
      {
        long: "Melbourne Demons",
        medium: "Melbourne",
        short: "MEL",
        colors: ["#0F1131", "#CC2031"],
        players: [
          p("Christian Petracca", "midfielder", "Midfielder", 5),
          p("Clayton Oliver", "midfielder", "Midfielder", 13),
          p("Kysaiah Pickett", "forward", "Forward", 36),
        ],
      },
      {
        long: "North Melbourne Kangaroos",
        medium: "North Melbourne",
        short: "NM",
        colors: ["#013B9F", "#FFFFFF"],
        players: [
          p("Harry Sheezel", "midfielder", "Midfielder", 3),
          p("Luke Davies-Uniacke", "midfielder", "Midfielder", 9),
          p("Nick Larkey", "forward", "Forward", 20),
        ],
      },
      {
        long: "Port Adelaide Power",
        medium: "Port Adelaide",
        short: "PA",
        colors: ["#008AAB", "#000000"],
        players: [
          p("Zak Butters", "midfielder", "Midfielder", 9),
          p("Connor Rozee", "midfielder", "Midfielder", 1),
          p("Mitch Georgiades", "forward", "Forward", 4),
        ],
      },
      {
        long: "Richmond Tigers",
        medium: "Richmond",
        short: "RIC",
        colors: ["#000000", "#FED102"],
        players: [
          p("Tim Taranto", "midfielder", "Midfielder", 15),
          p("Shai Bolton", "forward", "Forward", 29),
          p("Tom Lynch", "forward", "Forward", 19),
        ],
      },
      {
        long: "St Kilda Saints",
        medium: "St Kilda",
        short: "STK",
        colors: ["#ED0F05", "#000000"],
        players: [
          p("Jack Steele", "midfielder", "Midfielder", 9),
          p("Max King", "forward", "Forward", 12),
          p("Nasiah Wanganeen-Milera", "midfielder", "Defender", 34),
        ],
      },
      {
        long: "Sydney Swans",
        medium: "Sydney",
        short: "SYD",
        colors: ["#ED171F", "#FFFFFF"],
        players: [
          p("Isaac Heeney", "midfielder", "Midfielder", 5),
          p("Errol Gulden", "midfielder", "Midfielder", 21),
          p("Joel Amartey", "forward", "Forward", 36),
        ],
      },
      {
        long: "West Coast Eagles",
        medium: "West Coast",
        short: "WCE",
        colors: ["#062EE2", "#FFD700"],
        players: [
          p("Elliot Yeo", "midfielder", "Midfielder", 6),
          p("Jake Waterman", "forward", "Forward", 4),
          p("Harley Reid", "midfielder", "Midfielder", 9),
        ],
      },
      {
        long: "Western Bulldogs",
        medium: "Western Bulldogs",
        short: "WB",
        colors: ["#014896", "#E31937"],
        players: [
          p("Marcus Bontempelli", "midfielder", "Midfielder", 4),
          p("Aaron Naughton", "forward", "Forward", 33),
          p("Sam Darcy", "forward", "Forward", 7),
        ],
      },
    ],
  },
  {
    leagueID: "NRL",
    sportID: "RUGBY_LEAGUE",
    name: "National Rugby League",
    shortName: "NRL",
    prefix: "nrl",
    slots: [
      [4, "09:50"],
      [5, "08:00"],
      [5, "10:00"],
      [6, "04:00"],
      [6, "06:30"],
      [6, "09:35"],
      [0, "04:05"],
      [0, "06:15"],
    ],
    teams: [
      {
        long: "Brisbane Broncos",
        medium: "Broncos",
        short: "BRI",
        colors: ["#760135", "#FBB03F"],
        players: [
          p("Reece Walsh", "back", "Fullback", 1),
          p("Payne Haas", "forward", "Prop", 8),
          p("Selwyn Cobbo", "back", "Winger", 2),
        ],
      },
      {
        long: "Canberra Raiders",
        medium: "Raiders",
        short: "CAN",
        colors: ["#32CD32", "#FFFFFF"],
        players: [
          p("Jamal Fogarty", "back", "Halfback", 7),
          p("Xavier Savage", "back", "Winger", 5),
          p("Joseph Tapine", "forward", "Prop", 8),
        ],
      },
      {
        long: "Canterbury-Bankstown Bulldogs",
        medium: "Bulldogs",
        short: "CBY",
        colors: ["#005BAC", "#FFFFFF"],
        players: [
          p("Matt Burton", "back", "Five-eighth", 6),
          p("Stephen Crichton", "back", "Centre", 4),
          p("Viliame Kikau", "forward", "Second-row", 11),
        ],
      },
      {
        long: "Cronulla-Sutherland Sharks",
        medium: "Sharks",
        short: "CRO",
        colors: ["#00A9D8", "#000000"],
        players: [
          p("Nicho Hynes", "back", "Halfback", 7),
          p("Ronaldo Mulitalo", "back", "Winger", 5),
          p("Addin Fonua-Blake", "forward", "Prop", 8),
        ],
      },
      {
        long: "Dolphins",
        medium: "Dolphins",
        short: "DOL",
        colors: ["#E2231B", "#FFC20E"],
        players: [
          p("Hamiso Tabuai-Fidow", "back", "Fullback", 1),
          p("Isaiya Katoa", "back", "Halfback", 7),
          p("Jamayne Isaako", "back", "Winger", 2),
        ],
      },
      {
        long: "Gold Coast Titans",
        medium: "Titans",
        short: "GLD",
        colors: ["#009DDC", "#FFB81C"],
        players: [
          p("Jayden Campbell", "back", "Five-eighth", 6),
          p("AJ Brimson", "back", "Fullback", 1),
          p("David Fifita", "forward", "Second-row", 11),
        ],
      },
      {
        long: "Manly Warringah Sea Eagles",
        medium: "Sea Eagles",
        short: "MAN",
        colors: ["#6F163D", "#FFFFFF"],
        players: [
          p("Daly Cherry-Evans", "back", "Halfback", 7),
          p("Tom Trbojevic", "back", "Fullback", 1),
          p("Jason Saab", "back", "Winger", 5),
        ],
      },
      {
        long: "Melbourne Storm",
        medium: "Storm",
        short: "MEL",
        colors: ["#632390", "#FFD200"],
        players: [
          p("Jahrome Hughes", "back", "Halfback", 7),
          p("Ryan Papenhuyzen", "back", "Fullback", 1),
          p("Harry Grant", "forward", "Hooker", 9),
        ],
      },
      {
        long: "Newcastle Knights",
        medium: "Knights",
        short: "NEW",
        colors: ["#0054A4", "#EE3524"],
        players: [
          p("Kalyn Ponga", "back", "Fullback", 1),
          p("Dominic Young", "back", "Winger", 5),
          p("Jacob Saifiti", "forward", "Prop", 10),
        ],
      },
      {
        long: "New Zealand Warriors",
        medium: "Warriors",
        short: "NZW",
        colors: ["#231F20", "#BDBCBC"],
        players: [
          p("Shaun Johnson", "back", "Halfback", 7),
          p("Dallin Watene-Zelezniak", "back", "Winger", 2),
          p("James Fisher-Harris", "forward", "Prop", 8),
        ],
      },
      {
        long: "North Queensland Cowboys",
        medium: "Cowboys",
        short: "NQL",
        colors: ["#002B5C", "#FFDD02"],
        players: [
          p("Tom Dearden", "back", "Five-eighth", 6),
          p("Scott Drinkwater", "back", "Fullback", 1),
          p("Reuben Cotter", "forward", "Lock", 13),
        ],
      },
      {
        long: "Parramatta Eels",
        medium: "Eels",
        short: "PAR",
        colors: ["#006EB5", "#FFD200"],
        players: [
          p("Mitchell Moses", "back", "Halfback", 7),
          p("Zac Lomax", "back", "Centre", 3),
          p("Junior Paulo", "forward", "Prop", 8),
        ],
      },
      {
        long: "Penrith Panthers",
        medium: "Panthers",
        short: "PEN",
        colors: ["#000000", "#E6007E"],
        players: [
          p("Nathan Cleary", "back", "Halfback", 7),
          p("Dylan Edwards", "back", "Fullback", 1),
          p("Isaah Yeo", "forward", "Lock", 13),
        ],
      },
      {
        long: "South Sydney Rabbitohs",
        medium: "Rabbitohs",
        short: "SOU",
        colors: ["#007A3D", "#E2231B"],
        players: [
          p("Latrell Mitchell", "back", "Centre", 3),
          p("Cody Walker", "back", "Five-eighth", 6),
          p("Alex Johnston", "back", "Winger", 5),
        ],
      },
      {
        long: "St George Illawarra Dragons",
        medium: "Dragons",
        short: "SGI",
        colors: ["#E2231B", "#FFFFFF"],
        players: [
          p("Clint Gutherson", "back", "Fullback", 1),
          p("Kyle Flanagan", "back", "Halfback", 7),
          p("Mikaele Ravalawa", "back", "Winger", 5),
        ],
      },
      {
        long: "Sydney Roosters",
        medium: "Roosters",
        short: "SYD",
        colors: ["#00285E", "#E2231B"],
        players: [
          p("James Tedesco", "back", "Fullback", 1),
          p("Sam Walker", "back", "Halfback", 7),
          p("Daniel Tupou", "back", "Winger", 2),
        ],
      },
      {
        long: "Wests Tigers",
        medium: "Wests Tigers",
        short: "WST",
        colors: ["#F57600", "#000000"],
        players: [
          p("Jarome Luai", "back", "Five-eighth", 6),
          p("Api Koroisau", "forward", "Hooker", 9),
          p("Jahream Bula", "back", "Fullback", 1),
        ],
      },
    ],
  },
  {
    leagueID: "A_LEAGUE",
    sportID: "SOCCER",
    name: "A-League Men",
    shortName: "A-League",
    prefix: "aleague",
    slots: [
      [5, "08:35"],
      [6, "06:00"],
      [6, "08:35"],
      [0, "04:00"],
      [0, "06:00"],
      [0, "08:00"],
    ],
    teams: [
      {
        long: "Adelaide United",
        medium: "Adelaide United",
        short: "ADL",
        colors: ["#D51F34", "#FFD200"],
        players: [p("Craig Goodwin", "forward", "Forward", 11), p("Zach Clough", "midfielder", "Midfielder", 10)],
      },
      {
        long: "Auckland FC",
        medium: "Auckland",
        short: "AKL",
        colors: ["#000000", "#3BB4E6"],
        players: [p("Guillermo May", "forward", "Forward", 9), p("Logan Rogerson", "forward", "Forward", 7)],
      },
      {
        long: "Brisbane Roar",
        medium: "Brisbane Roar",
        short: "BRI",
        colors: ["#F37121", "#FFFFFF"],
        players: [p("Thomas Waddingham", "forward", "Forward", 9), p("Jay O'Shea", "midfielder", "Midfielder", 10)],
      },
      {
        long: "Central Coast Mariners",
        medium: "Mariners",
        short: "CCM",
        colors: ["#FFE600", "#002D62"],
        players: [p("Alou Kuol", "forward", "Forward", 9), p("Max Balard", "midfielder", "Midfielder", 8)],
      },
      {
        long: "Macarthur FC",
        medium: "Macarthur",
        short: "MAC",
        colors: ["#000000", "#C4A24D"],
        players: [p("Valere Germain", "forward", "Forward", 9), p("Ulises Davila", "midfielder", "Midfielder", 10)],
      },
      {
        long: "Melbourne City",
        medium: "Melbourne City",
        short: "MCY",
        colors: ["#6CABDD", "#FFFFFF"],
        players: [p("Andreas Kuen", "midfielder", "Midfielder", 10), p("Marco Tilio", "forward", "Forward", 23)],
      },
      {
        long: "Melbourne Victory",
        medium: "Melbourne Victory",
        short: "MVC",
        colors: ["#00205B", "#FFFFFF"],
        players: [p("Nikos Vergos", "forward", "Forward", 9), p("Daniel Arzani", "forward", "Forward", 11)],
      },
      {
        long: "Newcastle Jets",
        medium: "Newcastle Jets",
        short: "NEW",
        colors: ["#0033A0", "#EE2737"],
        players: [
          p("Apostolos Stamatelopoulos", "forward", "Forward", 9),
          p("Clayton Taylor", "midfielder", "Midfielder", 10),
        ],
      },
      {
        long: "Perth Glory",
        medium: "Perth Glory",
        short: "PER",
        colors: ["#4F2A85", "#F37021"],
        players: [p("Adam Taggart", "forward", "Forward", 9), p("David Williams", "forward", "Forward", 11)],
      },
      {
        long: "Sydney FC",
        medium: "Sydney FC",
        short: "SYD",
        colors: ["#6CACE4", "#002B5C"],
        players: [p("Joe Lolley", "forward", "Forward", 11), p("Anthony Caceres", "midfielder", "Midfielder", 10)],
      },
      {
        long: "Wellington Phoenix",
        medium: "Wellington",
        short: "WEL",
        colors: ["#FFD100", "#000000"],
        players: [p("Kosta Barbarouses", "forward", "Forward", 7), p("David Ball", "forward", "Forward", 10)],
      },
      {
        long: "Western Sydney Wanderers",
        medium: "Wanderers",
        short: "WSW",
        colors: ["#BE1E2D", "#000000"],
        players: [p("Nicolas Milanovic", "forward", "Forward", 11), p("Brandon Borrello", "forward", "Forward", 9)],
      },
    ],
  },
  {
    leagueID: "EPL",
    sportID: "SOCCER",
    name: "English Premier League",
    shortName: "EPL",
    prefix: "epl",
    slots: [
      [6, "12:30"],
      [6, "15:00"],
      [6, "15:00"],
      [6, "15:00"],
      [6, "17:30"],
      [0, "14:00"],
      [0, "14:00"],
      [0, "16:30"],
      [1, "20:00"],
      [5, "20:00"],
    ],
    teams: [
      {
        long: "Arsenal",
        medium: "Arsenal",
        short: "ARS",
        colors: ["#EF0107", "#FFFFFF"],
        players: [
          p("Bukayo Saka", "forward", "Winger", 7),
          p("Martin Odegaard", "midfielder", "Midfielder", 8),
          p("Viktor Gyokeres", "forward", "Striker", 14),
        ],
      },
      {
        long: "Aston Villa",
        medium: "Aston Villa",
        short: "AVL",
        colors: ["#670E36", "#95BFE5"],
        players: [
          p("Ollie Watkins", "forward", "Striker", 11),
          p("Morgan Rogers", "midfielder", "Midfielder", 27),
          p("Youri Tielemans", "midfielder", "Midfielder", 8),
        ],
      },
      {
        long: "AFC Bournemouth",
        medium: "Bournemouth",
        short: "BOU",
        colors: ["#DA291C", "#000000"],
        players: [
          p("Antoine Semenyo", "forward", "Winger", 24),
          p("Evanilson", "forward", "Striker", 9),
          p("Marcus Tavernier", "midfielder", "Midfielder", 16),
        ],
      },
      {
        long: "Brentford",
        medium: "Brentford",
        short: "BRE",
        colors: ["#E30613", "#FFFFFF"],
        players: [
          p("Igor Thiago", "forward", "Striker", 9),
          p("Mikkel Damsgaard", "midfielder", "Midfielder", 24),
          p("Kevin Schade", "forward", "Winger", 7),
        ],
      },
      {
        long: "Brighton & Hove Albion",
        medium: "Brighton",
        short: "BHA",
        colors: ["#0057B8", "#FFFFFF"],
        players: [
          p("Danny Welbeck", "forward", "Striker", 18),
          p("Kaoru Mitoma", "forward", "Winger", 22),
          p("Georginio Rutter", "midfielder", "Midfielder", 10),
        ],
      },
      {
        long: "Burnley",
        medium: "Burnley",
        short: "BUR",
        colors: ["#6C1D45", "#99D6EA"],
        players: [
          p("Lyle Foster", "forward", "Striker", 17),
          p("Josh Cullen", "midfielder", "Midfielder", 24),
          p("Zian Flemming", "forward", "Forward", 19),
        ],
      },
      {
        long: "Chelsea",
        medium: "Chelsea",
        short: "CHE",
        colors: ["#034694", "#FFFFFF"],
        players: [
          p("Cole Palmer", "midfielder", "Midfielder", 10),
          p("Joao Pedro", "forward", "Striker", 20),
          p("Enzo Fernandez", "midfielder", "Midfielder", 8),
        ],
      },
      {
        long: "Crystal Palace",
        medium: "Crystal Palace",
        short: "CRY",
        colors: ["#1B458F", "#C4122E"],
        players: [
          p("Jean-Philippe Mateta", "forward", "Striker", 14),
          p("Ismaila Sarr", "forward", "Winger", 7),
          p("Adam Wharton", "midfielder", "Midfielder", 20),
        ],
      },
      {
        long: "Everton",
        medium: "Everton",
        short: "EVE",
        colors: ["#003399", "#FFFFFF"],
        players: [
          p("Iliman Ndiaye", "forward", "Winger", 10),
          p("Beto", "forward", "Striker", 9),
          p("Jack Grealish", "midfielder", "Midfielder", 18),
        ],
      },
      {
        long: "Fulham",
        medium: "Fulham",
        short: "FUL",
        colors: ["#000000", "#FFFFFF"],
        players: [
          p("Raul Jimenez", "forward", "Striker", 7),
          p("Alex Iwobi", "midfielder", "Midfielder", 17),
          p("Emile Smith Rowe", "midfielder", "Midfielder", 32),
        ],
      },
      {
        long: "Leeds United",
        medium: "Leeds",
        short: "LEE",
        colors: ["#FFFFFF", "#1D428A"],
        players: [
          p("Dominic Calvert-Lewin", "forward", "Striker", 9),
          p("Daniel James", "forward", "Winger", 7),
          p("Ethan Ampadu", "midfielder", "Midfielder", 4),
        ],
      },
      {
        long: "Liverpool",
        medium: "Liverpool",
        short: "LIV",
        colors: ["#C8102E", "#FFFFFF"],
        players: [
          p("Mohamed Salah", "forward", "Winger", 11),
          p("Alexander Isak", "forward", "Striker", 9),
          p("Florian Wirtz", "midfielder", "Midfielder", 7),
        ],
      },
      {
        long: "Manchester City",
        medium: "Man City",
        short: "MCI",
        colors: ["#6CABDD", "#1C2C5B"],
        players: [
          p("Erling Haaland", "forward", "Striker", 9),
          p("Phil Foden", "midfielder", "Midfielder", 47),
          p("Omar Marmoush", "forward", "Forward", 7),
        ],
      },
      {
        long: "Manchester United",
        medium: "Man United",
        short: "MUN",
        colors: ["#DA291C", "#FBE122"],
        players: [
          p("Bruno Fernandes", "midfielder", "Midfielder", 8),
          p("Bryan Mbeumo", "forward", "Winger", 19),
          p("Matheus Cunha", "forward", "Forward", 10),
        ],
      },
      {
        long: "Newcastle United",
        medium: "Newcastle",
        short: "NEW",
        colors: ["#241F20", "#FFFFFF"],
        players: [
          p("Nick Woltemade", "forward", "Striker", 27),
          p("Anthony Gordon", "forward", "Winger", 10),
          p("Bruno Guimaraes", "midfielder", "Midfielder", 39),
        ],
      },
      {
        long: "Nottingham Forest",
        medium: "Nottm Forest",
        short: "NFO",
        colors: ["#DD0000", "#FFFFFF"],
        players: [
          p("Chris Wood", "forward", "Striker", 11),
          p("Morgan Gibbs-White", "midfielder", "Midfielder", 10),
          p("Callum Hudson-Odoi", "forward", "Winger", 7),
        ],
      },
      {
        long: "Sunderland",
        medium: "Sunderland",
        short: "SUN",
        colors: ["#EB172B", "#FFFFFF"],
        players: [
          p("Wilson Isidor", "forward", "Striker", 18),
          p("Enzo Le Fee", "midfielder", "Midfielder", 28),
          p("Granit Xhaka", "midfielder", "Midfielder", 34),
        ],
      },
      {
        long: "Tottenham Hotspur",
        medium: "Tottenham",
        short: "TOT",
        colors: ["#132257", "#FFFFFF"],
        players: [
          p("Richarlison", "forward", "Striker", 9),
          p("Mohammed Kudus", "forward", "Winger", 20),
          p("James Maddison", "midfielder", "Midfielder", 10),
        ],
      },
      {
        long: "West Ham United",
        medium: "West Ham",
        short: "WHU",
        colors: ["#7A263A", "#1BB1E7"],
        players: [
          p("Jarrod Bowen", "forward", "Winger", 20),
          p("Lucas Paqueta", "midfielder", "Midfielder", 10),
          p("Callum Wilson", "forward", "Striker", 9),
        ],
      },
      {
        long: "Wolverhampton Wanderers",
        medium: "Wolves",
        short: "WOL",
        colors: ["#FDB913", "#231F20"],
        players: [
          p("Jorgen Strand Larsen", "forward", "Striker", 9),
          p("Hwang Hee-chan", "forward", "Forward", 11),
          p("Joao Gomes", "midfielder", "Midfielder", 8),
        ],
      },
    ],
  },
  {
    leagueID: "BBL",
    sportID: "CRICKET",
    name: "Big Bash League",
    shortName: "BBL",
    prefix: "bbl",
    slots: [
      [0, "08:15"],
      [1, "08:15"],
      [2, "08:15"],
      [3, "08:15"],
      [4, "08:15"],
      [5, "08:15"],
      [6, "08:15"],
    ],
    teams: [
      {
        long: "Adelaide Strikers",
        medium: "Strikers",
        short: "STR",
        colors: ["#00AEEF", "#FFFFFF"],
        players: [
          p("Matt Short", "batter", "Batter", 6),
          p("Alex Ross", "batter", "Batter", 4),
          p("Cameron Boyce", "bowler", "Bowler", 9),
        ],
      },
      {
        long: "Brisbane Heat",
        medium: "Heat",
        short: "HEA",
        colors: ["#00B2A9", "#FFFFFF"],
        players: [
          p("Colin Munro", "batter", "Batter", 82),
          p("Nathan McSweeney", "batter", "Batter", 64),
          p("Xavier Bartlett", "bowler", "Bowler", 45),
        ],
      },
      {
        long: "Hobart Hurricanes",
        medium: "Hurricanes",
        short: "HUR",
        colors: ["#6E2C90", "#FFFFFF"],
        players: [
          p("Mitchell Owen", "batter", "Batter", 3),
          p("Tim David", "batter", "Batter", 85),
          p("Riley Meredith", "bowler", "Bowler", 8),
        ],
      },
      {
        long: "Melbourne Renegades",
        medium: "Renegades",
        short: "REN",
        colors: ["#E6002B", "#000000"],
        players: [
          p("Jake Fraser-McGurk", "batter", "Batter", 23),
          p("Tim Seifert", "batter", "Wicket-keeper", 43),
          p("Adam Zampa", "bowler", "Bowler", 88),
        ],
      },
      {
        long: "Melbourne Stars",
        medium: "Stars",
        short: "STA",
        colors: ["#00843D", "#FFFFFF"],
        players: [
          p("Glenn Maxwell", "batter", "Batter", 32),
          p("Marcus Stoinis", "batter", "Batter", 17),
          p("Haris Rauf", "bowler", "Bowler", 97),
        ],
      },
      {
        long: "Perth Scorchers",
        medium: "Scorchers",
        short: "SCO",
        colors: ["#F58220", "#000000"],
        players: [
          p("Cooper Connolly", "batter", "Batter", 3),
          p("Josh Inglis", "batter", "Wicket-keeper", 48),
          p("Jason Behrendorff", "bowler", "Bowler", 65),
        ],
      },
      {
        long: "Sydney Sixers",
        medium: "Sixers",
        short: "SIX",
        colors: ["#E4007C", "#FFFFFF"],
        players: [
          p("Josh Philippe", "batter", "Wicket-keeper", 19),
          p("Moises Henriques", "batter", "Batter", 21),
          p("Sean Abbott", "bowler", "Bowler", 77),
        ],
      },
      {
        long: "Sydney Thunder",
        medium: "Thunder",
        short: "THU",
        colors: ["#8CC63F", "#000000"],
        players: [
          p("Sam Konstas", "batter", "Batter", 42),
          p("Cameron Bancroft", "batter", "Batter", 4),
          p("Tanveer Sangha", "bowler", "Bowler", 63),
        ],
      },
    ],
  },
  {
    leagueID: "IPL",
    sportID: "CRICKET",
    name: "Indian Premier League",
    shortName: "IPL",
    prefix: "ipl",
    slots: [
      [0, "10:00"],
      [0, "14:00"],
      [1, "14:00"],
      [2, "14:00"],
      [4, "14:00"],
      [5, "14:00"],
      [6, "10:00"],
      [6, "14:00"],
    ],
    teams: [
      {
        long: "Chennai Super Kings",
        medium: "Chennai",
        short: "CSK",
        colors: ["#FDB913", "#0081E9"],
        players: [
          p("Ruturaj Gaikwad", "batter", "Batter", 31),
          p("MS Dhoni", "batter", "Wicket-keeper", 7),
          p("Noor Ahmad", "bowler", "Bowler", 15),
        ],
      },
      {
        long: "Delhi Capitals",
        medium: "Delhi",
        short: "DC",
        colors: ["#17449B", "#EF1B23"],
        players: [
          p("KL Rahul", "batter", "Wicket-keeper", 1),
          p("Axar Patel", "bowler", "All-rounder", 20),
          p("Mitchell Starc", "bowler", "Bowler", 56),
        ],
      },
      {
        long: "Gujarat Titans",
        medium: "Gujarat",
        short: "GT",
        colors: ["#1B2133", "#C1A04C"],
        players: [
          p("Shubman Gill", "batter", "Batter", 77),
          p("Sai Sudharsan", "batter", "Batter", 23),
          p("Rashid Khan", "bowler", "Bowler", 19),
        ],
      },
      {
        long: "Kolkata Knight Riders",
        medium: "Kolkata",
        short: "KKR",
        colors: ["#3A225D", "#B3A123"],
        players: [
          p("Sunil Narine", "bowler", "All-rounder", 74),
          p("Rinku Singh", "batter", "Batter", 35),
          p("Varun Chakaravarthy", "bowler", "Bowler", 29),
        ],
      },
      {
        long: "Lucknow Super Giants",
        medium: "Lucknow",
        short: "LSG",
        colors: ["#0057E2", "#F28B00"],
        players: [
          p("Rishabh Pant", "batter", "Wicket-keeper", 17),
          p("Nicholas Pooran", "batter", "Batter", 29),
          p("Mitchell Marsh", "batter", "All-rounder", 8),
        ],
      },
      {
        long: "Mumbai Indians",
        medium: "Mumbai",
        short: "MI",
        colors: ["#004BA0", "#D1AB3E"],
        players: [
          p("Rohit Sharma", "batter", "Batter", 45),
          p("Suryakumar Yadav", "batter", "Batter", 63),
          p("Jasprit Bumrah", "bowler", "Bowler", 93),
        ],
      },
      {
        long: "Punjab Kings",
        medium: "Punjab",
        short: "PBKS",
        colors: ["#DD1F2D", "#A7A9AC"],
        players: [
          p("Shreyas Iyer", "batter", "Batter", 41),
          p("Prabhsimran Singh", "batter", "Wicket-keeper", 84),
          p("Arshdeep Singh", "bowler", "Bowler", 2),
        ],
      },
      {
        long: "Rajasthan Royals",
        medium: "Rajasthan",
        short: "RR",
        colors: ["#EA1A85", "#254AA5"],
        players: [
          p("Yashasvi Jaiswal", "batter", "Batter", 64),
          p("Sanju Samson", "batter", "Wicket-keeper", 11),
          p("Jofra Archer", "bowler", "Bowler", 22),
        ],
      },
      {
        long: "Royal Challengers Bengaluru",
        medium: "Bengaluru",
        short: "RCB",
        colors: ["#EC1C24", "#2B2A29"],
        players: [
          p("Virat Kohli", "batter", "Batter", 18),
          p("Phil Salt", "batter", "Wicket-keeper", 97),
          p("Josh Hazlewood", "bowler", "Bowler", 38),
        ],
      },
      {
        long: "Sunrisers Hyderabad",
        medium: "Hyderabad",
        short: "SRH",
        colors: ["#F7A721", "#000000"],
        players: [
          p("Travis Head", "batter", "Batter", 62),
          p("Abhishek Sharma", "batter", "Batter", 4),
          p("Pat Cummins", "bowler", "Bowler", 30),
        ],
      },
    ],
  },
];

export const LEAGUES: FixtureLeague[] = [...TEAM_LEAGUES, ...COMPETITOR_SPORTS.map((s) => s.league)];
