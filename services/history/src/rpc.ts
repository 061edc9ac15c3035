import type { handleUnaryCall } from "@grpc/grpc-js";
import {
  JSON_PAGE_METHODS,
  serverStreamingHandler,
  unaryHandler,
  withJsonPageWire,
  withRequestDecoder,
} from "@odds/platform";
import { history, planScope } from "@odds/proto";
import type { Logger } from "pino";
import { toV1HistoryFile, type HistoryFiles } from "./files/history-files";
import type { TickReader } from "./reader";
import { snapshotsByEvent, type QuoteRecorder } from "./recorder";
import type { BookSnapshot } from "./ticks";

/** The HistoryService as served here: RecordQuotes' snapshots reach it encoded (see `historyServiceDefinition`). */
export type HistoryServiceHandlers = Omit<history.HistoryServiceServer, "recordQuotes"> & {
  recordQuotes: handleUnaryCall<history.RecordQuotesRequestEncoded, history.RecordQuotesResponse>;
};

/**
 * The HistoryService definition, with its pages framed around the rendered ticks in one copy (`withJsonPageWire`),
 * and RecordQuotes' request decoded with its snapshots left encoded (`RecordQuotesRequestEncoded`: the same wire
 * message), each event's decoded by the recorder at its turn.
 */
export const historyServiceDefinition = {
  ...withJsonPageWire(history.HistoryServiceService, JSON_PAGE_METHODS.history),
  recordQuotes: withRequestDecoder(history.HistoryServiceService.recordQuotes, (bytes) =>
    history.RecordQuotesRequestEncoded.decode(bytes),
  ),
};

/** Maps HistoryService messages to the recorder and reader; no rules live here. */
export function historyRpc(
  logger: Logger,
  domain: { recorder: QuoteRecorder; reader: TickReader; files: HistoryFiles },
): HistoryServiceHandlers {
  return {
    listHistoryFiles: unaryHandler(logger, async (request: history.ListHistoryFilesRequest) => {
      const days = await domain.files.list(planScope.planScopeOf(request.caller), request.leagueIds);
      const items = days.map((day) => Buffer.from(JSON.stringify(toV1HistoryFile(day)), "utf8"));
      return { items, nextCursor: "", notice: "", objects: items.length };
    }),
    getHistoryFile: serverStreamingHandler(logger, async function* (request: history.GetHistoryFileRequest) {
      const file = await domain.files.file(planScope.planScopeOf(request.caller), request.leagueId, request.day);
      let first = true;
      for await (const data of file.open()) {
        yield history.HistoryFileChunk.create({
          ...(first ? { size: file.size, etag: file.etag } : {}),
          data: data as Buffer,
        });
        first = false;
      }
      if (first) yield history.HistoryFileChunk.create({ size: file.size, etag: file.etag });
    }),
    listTicks: unaryHandler(logger, (request: history.ListTicksRequest) =>
      domain.reader.listTicks({
        scope: planScope.planScopeOf(request.caller),
        eventID: request.eventId,
        oddIDs: request.oddIds,
        bookmakerIDs: request.bookmakerIds,
        ...(request.fromMs !== undefined ? { fromMs: request.fromMs } : {}),
        ...(request.toMs !== undefined ? { toMs: request.toMs } : {}),
        limit: request.limit,
        cursor: request.cursor,
        ...(request.ifTag !== undefined ? { ifTag: request.ifTag } : {}),
        ...(request.view === "v1"
          ? { view: "v1" as const, marketIDs: request.marketIds, outcomeIDs: request.outcomeIds }
          : {}),
      }),
    ),
    recordQuotes: unaryHandler(logger, async (request: history.RecordQuotesRequestEncoded) => {
      const started = Date.now();
      const events = snapshotsByEvent(
        request.snapshots,
        (encoded) => history.BookSnapshotKey.decode(encoded).eventId,
        (encoded) => toBookSnapshot(history.BookSnapshot.decode(encoded)),
      );
      const result = await domain.recorder.record(
        request.events.map((ref) => ({
          eventID: ref.eventId,
          sportID: ref.sportId,
          leagueID: ref.leagueId,
          startsAtMs: ref.startsAtMs,
        })),
        events,
      );
      // The events a call carried, acknowledged at this line's time: how soon a tick is served is timed from it.
      logger.info(
        {
          eventIds: events.map((event) => event.eventID),
          snapshots: request.snapshots.length,
          ticks: result.ticksRecorded,
          ms: Date.now() - started,
        },
        "quotes recorded",
      );
      return result;
    }),
  };
}

function toBookSnapshot(snapshot: history.BookSnapshot): BookSnapshot {
  return {
    eventID: snapshot.eventId,
    bookmakerID: snapshot.bookmakerId,
    sourceID: snapshot.sourceId,
    sourceRank: snapshot.sourceRank,
    observedAtMs: snapshot.observedAtMs,
    quotes: snapshot.quotes.map((quote) => ({
      oddID: quote.oddId,
      decimalOdds: quote.decimalOdds,
      available: quote.available,
      ...(quote.line !== undefined ? { line: quote.line } : {}),
      ...(quote.isMainLine !== undefined ? { isMainLine: quote.isMainLine } : {}),
      ...(quote.layOdds !== undefined ? { layOdds: quote.layOdds } : {}),
      ...(quote.maxStake !== undefined ? { maxStake: quote.maxStake } : {}),
    })),
  };
}
