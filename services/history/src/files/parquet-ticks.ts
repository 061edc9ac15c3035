import type { v1 } from "@odds/proto";
import {
  Bool,
  Dictionary,
  Float64,
  Int32,
  Table,
  TimestampMillisecond,
  Utf8,
  tableToIPC,
  vectorFromArray,
  type DataType,
} from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from "parquet-wasm/node";

/**
 * The Parquet schema of a league-day file: one row per v1 OddsTick, the same fields under the same
 * names, typed. Strings that repeat (ids, bookmaker, kind) are dictionary encoded; the file is ZSTD
 * compressed. Rows are ordered by event_id, then as /v1/odds/history orders them (oldest first).
 */
export const TICK_FILE_COLUMNS = {
  event_id: "string (dictionary)",
  market_id: "string (dictionary)",
  outcome_id: "string (dictionary)",
  bookmaker: "string (dictionary)",
  changed_at: "timestamp[ms, UTC]",
  kind: "string (dictionary): open, move, limit, close",
  decimal_odds: "double, null on close",
  implied_probability: "double, null on close",
  previous_decimal_odds: "double, null on open",
  line: "double, nullable",
  is_main_line: "boolean, nullable",
  lay_odds: "double, nullable",
  max_stake: "double, nullable",
  previous_max_stake: "double, nullable",
} as const;

const text = () => new Dictionary(new Utf8(), new Int32());

function column<T extends DataType>(type: T, values: unknown[]) {
  return vectorFromArray(values as never[], type);
}

/** The ticks as a Parquet file (typed columns, ZSTD). */
export function encodeTicks(ticks: readonly v1.V1OddsTick[]): Uint8Array {
  const of = <K extends keyof v1.V1OddsTick>(key: K) => ticks.map((tick) => tick[key]);
  const table = new Table({
    event_id: column(text(), of("event_id")),
    market_id: column(text(), of("market_id")),
    outcome_id: column(text(), of("outcome_id")),
    bookmaker: column(text(), of("bookmaker")),
    changed_at: column(
      new TimestampMillisecond("UTC"),
      ticks.map((tick) => Date.parse(tick.changed_at)),
    ),
    kind: column(text(), of("kind")),
    decimal_odds: column(new Float64(), of("decimal_odds")),
    implied_probability: column(new Float64(), of("implied_probability")),
    previous_decimal_odds: column(new Float64(), of("previous_decimal_odds")),
    line: column(new Float64(), of("line")),
    is_main_line: column(new Bool(), of("is_main_line")),
    lay_odds: column(new Float64(), of("lay_odds")),
    max_stake: column(new Float64(), of("max_stake")),
    previous_max_stake: column(new Float64(), of("previous_max_stake")),
  });
  const properties = new WriterPropertiesBuilder().setCompression(Compression.ZSTD).build();
  return writeParquet(WasmTable.fromIPCStream(tableToIPC(table, "stream")), properties);
}
