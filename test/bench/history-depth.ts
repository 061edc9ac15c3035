import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitUntil, type RunningStack } from "@odds/local";
import { callUnary, createGrpcClient } from "@odds/platform";
import { history } from "@odds/proto";
import { historyTicks } from "./ingest";

/**
 * The history cases need one event with at least 50,000 ticks across both tiers (a 5000-tick page,
 * a 50,000-tick paged read); the feed's replay writes a few hundred per event. Where the densest
 * event falls short, a replay source of its own (`bench-depth`) is written for it through the
 * production write path: history's RecordQuotes, one call per instant from 40 days back, every
 * price moving each time; the history service's archiver then moves what is past the live tier's
 * 28 days to the archive tier. Written once per dataset (`history-depth.json` in its folder).
 */

export const DEPTH_SOURCE_ID = "bench-depth";
/**
 * Above the simulated feed's sources (10, 20): a read keeps one source per bookmaker for its whole
 * window, the highest ranked, so a lower rank would hide the replay behind the feed's own ticks.
 */
const DEPTH_SOURCE_RANK = 100;
const DAY_MS = 86_400_000;
const SPAN_DAYS = 40;

export interface DeepEvent {
  eventID: string;
  sportID: string;
  leagueID: string;
  startsAtMs: number;
  oddIDs: string[];
  bookmakerIDs: string[];
}

export interface HistoryDepth {
  eventID: string;
  /** Where the replay starts: the history cases read from here (before the event's default window). */
  fromMs: number;
  ticks: { live: number; archive: number };
}

function depthFile(dataDir: string): string {
  return join(dataDir, "history-depth.json");
}

/**
 * The end of the replay's window: its instants run to a day before it was written, far past the event's
 * default window (two days after kick-off), which would leave most of the replay out of a read.
 */
export function depthEndMs(depth: HistoryDepth): number {
  return depth.fromMs + SPAN_DAYS * DAY_MS;
}

/** The replay written for this dataset earlier, if any. */
export function writtenDepth(dataDir: string): HistoryDepth | undefined {
  const file = depthFile(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as HistoryDepth) : undefined;
}

/** A price for series `s` at instant `i`: moves every instant, stays a plausible decimal price. */
function price(s: number, i: number): number {
  return Math.round((1.4 + ((s * 37 + i * 11) % 260) / 100) * 100) / 100;
}

export async function deepenHistory(
  stack: RunningStack,
  event: DeepEvent,
  minTicks: number,
  report: (line: string) => void,
): Promise<HistoryDepth> {
  const file = depthFile(stack.dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as HistoryDepth;
  const series = event.oddIDs.length * event.bookmakerIDs.length;
  const instants = Math.ceil((minTicks * 1.05) / series) + 1;
  const nowMs = Date.now();
  const fromMs = Math.floor((nowMs - SPAN_DAYS * DAY_MS) / 3_600_000) * 3_600_000;
  const stepMs = Math.floor((SPAN_DAYS - 1) * DAY_MS) / instants;
  report(
    `  history depth: replaying ${instants} instants x ${series} series of ${event.eventID} through RecordQuotes (source ${DEPTH_SOURCE_ID})`,
  );
  const client = createGrpcClient(history.HistoryServiceClient, `127.0.0.1:${stack.ports.history}`, {
    defaultDeadlineMs: 120_000,
  });
  try {
    const ref = history.EventRef.create({
      eventId: event.eventID,
      sportId: event.sportID,
      leagueId: event.leagueID,
      startsAtMs: event.startsAtMs,
    });
    let recorded = 0;
    for (let i = 0; i < instants; i += 1) {
      const observedAtMs = Math.round(fromMs + i * stepMs);
      const snapshots = event.bookmakerIDs.map((bookmakerId, b) =>
        history.BookSnapshot.create({
          eventId: event.eventID,
          bookmakerId,
          sourceId: DEPTH_SOURCE_ID,
          sourceRank: DEPTH_SOURCE_RANK,
          observedAtMs,
          quotes: event.oddIDs.map((oddId, o) =>
            history.Quote.create({ oddId, decimalOdds: price(b * event.oddIDs.length + o, i), available: true }),
          ),
        }),
      );
      const result = await callUnary(client, client.recordQuotes, { events: [ref], snapshots });
      recorded += result.ticksRecorded;
    }
    report(`  history depth: ${recorded} ticks recorded; waiting for the archiver to move what is past the live tier`);
  } finally {
    client.close();
  }
  // The archiver moves a day at a time every ARCHIVE_INTERVAL_MS: done once the archive stops growing.
  let tiers = { live: 0, archive: 0 };
  await waitUntil(
    "the archiver moved the replay's old days",
    async () => {
      const found = (await historyTicks(stack)).byEvent.find((e) => e.eventID === event.eventID);
      const before = tiers.archive;
      tiers = { live: found?.live ?? 0, archive: found?.archive ?? 0 };
      if (tiers.archive === 0 || tiers.archive !== before) throw new Error(`archive at ${tiers.archive}`);
    },
    { timeoutMs: 10 * 60_000, intervalMs: 20_000 },
  );
  const depth: HistoryDepth = { eventID: event.eventID, fromMs, ticks: tiers };
  writeFileSync(file, `${JSON.stringify(depth, null, 2)}\n`);
  return depth;
}
