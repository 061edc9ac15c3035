import { Writable } from "node:stream";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { accessLogger, createLogger, redactApiKey } from "./logger";

function capture(): { lines: () => Record<string, unknown>[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
  };
}

describe("createLogger", () => {
  it("writes JSON lines that carry the active trace and span ids", () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const tracer = new BasicTracerProvider().getTracer("test");
    const out = capture();
    const logger = createLogger("events", "info", out.stream);
    const span = tracer.startSpan("request");
    context.with(trace.setSpan(context.active(), span), () => logger.info("inside"));
    span.end();
    logger.info("outside");
    const [inside, outside] = out.lines();
    expect(inside).toMatchObject({ service: "events", msg: "inside", level: "info" });
    expect(inside?.trace_id).toBe(span.spanContext().traceId);
    expect(inside?.span_id).toBe(span.spanContext().spanId);
    expect(outside?.trace_id).toBeUndefined();
    context.disable();
  });

  it("never writes API keys, authorization headers or connection strings", () => {
    const out = capture();
    const logger = createLogger("edge", "info", out.stream);
    logger.info(
      {
        apiKey: "secret-1",
        req: { headers: { "x-api-key": "secret-2", authorization: "Bearer secret-3" } },
        uri: "mongodb://u:secret-4@h/db",
      },
      "request",
    );
    const text = JSON.stringify(out.lines());
    for (const secret of ["secret-1", "secret-2", "secret-3", "secret-4"]) expect(text).not.toContain(secret);
  });

  it("writes access lines like any other, while the logger they came from still redacts", () => {
    const out = capture();
    const logger = createLogger("edge", "info", out.stream);
    accessLogger(logger).info(
      { method: "GET", path: redactApiKey("/v2/sports/?apiKey=secret-5"), status: 200, keyID: "083d92bb6403e574" },
      "request",
    );
    logger.info({ apiKey: "secret-6" }, "after");
    const [access, after] = out.lines();
    expect(access).toMatchObject({ service: "edge", level: "info", msg: "request", status: 200 });
    expect(access?.path).toBe("/v2/sports/?apiKey=[REDACTED]");
    expect(after?.apiKey).toBe("[REDACTED]");
  });

  it("redacts the apiKey query parameter in a URL, in any letter case", () => {
    expect(redactApiKey("/v2/events/?leagueID=AFL&apiKey=abc123&limit=5")).toBe(
      "/v2/events/?leagueID=AFL&apiKey=[REDACTED]&limit=5",
    );
    expect(redactApiKey("/v2/sports/?APIKEY=abc")).toBe("/v2/sports/?APIKEY=[REDACTED]");
  });
});
