import { createHash } from "node:crypto";
import { InvalidArgumentError, NotFoundError, UnavailableError } from "@odds/platform";
import { planScope, v1 } from "@odds/proto";
import type { EventRef, EventRefStore } from "../event-refs";
import type { TickReader } from "../reader";
import type { TickTier } from "../tick-tier";
import { DAY_MS } from "../ticks";
import type { HistoryStores } from "../tier-stores";
import { FileCache, type CachedFile } from "./file-cache";
import { encodeTicks } from "./parquet-ticks";

/** A league-day is offered once it ended this long ago (late ticks of the day have been recorded). */
const SETTLE_MS = 15 * 60_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const READ_PAGE = 5_000;

export interface LeagueDay {
  leagueID: string;
  day: string;
}

/**
 * v1 history files: the complete league-days of the tick store (from each league's history start),
 * and one league-day's ticks as a Parquet file, produced through the same read as /v1/odds/history
 * (so the file and the route agree tick for tick), written once, then served from the cache.
 */
export class HistoryFiles {
  constructor(
    private readonly tiers: readonly TickTier[],
    private readonly refs: EventRefStore,
    private readonly reader: TickReader,
    private readonly cache: FileCache,
    private readonly historyStarts: v1.HistoryStarts,
    private readonly now: () => number = Date.now,
  ) {}

  /** The files of both tiers of `stores`, cached in the live store. */
  static over(
    stores: HistoryStores,
    refs: EventRefStore,
    reader: TickReader,
    historyStarts: v1.HistoryStarts,
  ): HistoryFiles {
    return new HistoryFiles([stores.live, stores.archive], refs, reader, new FileCache(stores.liveDb), historyStarts);
  }

  /** Complete league-days the plan can see, newest first (optionally of some leagues). */
  async list(scope: planScope.PlanScope, leagueIDs: readonly string[]): Promise<LeagueDay[]> {
    const days = await this.leagueDays(scope);
    return [...days.keys()]
      .map((key) => {
        const [leagueID, day] = key.split("|") as [string, string];
        return { leagueID, day };
      })
      .filter((entry) => leagueIDs.length === 0 || leagueIDs.includes(entry.leagueID))
      .sort((a, b) => b.day.localeCompare(a.day) || a.leagueID.localeCompare(b.leagueID));
  }

  /** One league-day as a Parquet file (404 when it is not a complete league-day the plan sees). */
  async file(scope: planScope.PlanScope, leagueID: string, day: string): Promise<CachedFile> {
    if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
      throw new InvalidArgumentError("day", "expected a UTC day, YYYY-MM-DD");
    }
    const events = (await this.leagueDays(scope)).get(`${leagueID}|${day}`);
    if (!events) throw new NotFoundError(`no history file for ${leagueID} on ${day}`);
    const name = `${leagueID}/${day}/${bookmakersKey(scope)}`;
    return (await this.cache.find(name)) ?? this.cache.save(name, encodeTicks(await this.ticksOf(scope, events, day)));
  }

  private async ticksOf(scope: planScope.PlanScope, events: EventRef[], day: string): Promise<v1.V1OddsTick[]> {
    const fromMs = Date.parse(`${day}T00:00:00Z`);
    const ticks: v1.V1OddsTick[] = [];
    const ordered = events.map((event) => v1.v1Id("event", event.eventID)).sort();
    for (const eventID of ordered) {
      let cursor = "";
      do {
        const page = await this.reader.listTicks({
          scope,
          view: "v1",
          eventID,
          oddIDs: [],
          bookmakerIDs: [],
          fromMs,
          toMs: fromMs + DAY_MS,
          limit: READ_PAGE,
          cursor,
        });
        // An incomplete series (archive tier down) is never written: the file would be cached short.
        if (page.notice) throw new UnavailableError(`history file not written: ${page.notice}`);
        for (const item of page.items) ticks.push(JSON.parse(item.toString("utf8")) as v1.V1OddsTick);
        cursor = page.nextCursor;
      } while (cursor);
    }
    return ticks;
  }

  /** league|day -> the events with ticks that day, for complete days from the league's history start. */
  private async leagueDays(scope: planScope.PlanScope): Promise<Map<string, EventRef[]>> {
    const noted = (await Promise.all(this.tiers.map((tier) => tier.listDays()))).flat();
    const lastDay = new Date(this.now() - SETTLE_MS - DAY_MS).toISOString().slice(0, 10);
    const found = new Map<string, EventRef[]>();
    const seen = new Set<string>();
    for (const { day, eventID } of noted) {
      if (day > lastDay || seen.has(`${day}|${eventID}`)) continue;
      seen.add(`${day}|${eventID}`);
      const ref = await this.refs.get(eventID);
      if (!ref || !planScope.leagueVisible(scope, ref.leagueID, ref.sportID)) continue;
      if (day < this.historyStarts.dayOf(ref.leagueID)) continue;
      const key = `${ref.leagueID}|${day}`;
      found.set(key, [...(found.get(key) ?? []), ref]);
    }
    return found;
  }
}

/** Files are cut to the plan's bookmakers; plans with the same cap share a file. */
function bookmakersKey(scope: planScope.PlanScope): string {
  if (scope.bookmakerIDs === null) return "all";
  return createHash("sha256")
    .update([...scope.bookmakerIDs].sort().join(","))
    .digest("hex")
    .slice(0, 12);
}

/** A league-day as the v1 HistoryFile object. */
export function toV1HistoryFile({ leagueID, day }: LeagueDay): v1.V1HistoryFile {
  return { league_id: leagueID, day, url: `/v1/history/files/${encodeURIComponent(leagueID)}/${day}` };
}
