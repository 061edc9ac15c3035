import { trace } from "@opentelemetry/api";
import pino, { type Logger } from "pino";

export type { Logger } from "pino";

/** Paths never written to a log line: keys, secrets and connection strings. */
const REDACTED_PATHS = [
  "apiKey",
  "*.apiKey",
  "req.headers['x-api-key']",
  "headers['x-api-key']",
  "*.headers['x-api-key']",
  "authorization",
  "*.authorization",
  "req.headers.authorization",
  "password",
  "*.password",
  "uri",
  "*.uri",
];

/** Masks the value of an `apiKey` query parameter in a URL or path. */
export function redactApiKey(url: string): string {
  return url.replace(/([?&]apikey=)[^&#]*/gi, "$1[REDACTED]");
}

/**
 * A child for access lines (one per request) whose fields are fixed by the caller and carry no
 * secret (a URL goes through `redactApiKey` first). It skips the redaction pass, which costs about
 * three times the rest of a line (10 µs of 13 µs measured): a line per request adds up.
 */
export function accessLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}

/** One JSON log line per event, with the active trace and span ids on every line. */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? "info",
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: "[REDACTED]" },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
