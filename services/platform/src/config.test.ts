import { z } from "zod";
import { ConfigError, env, parseConfig } from "./config";

const schema = z.object({
  GRPC_PORT: env.port(50051),
  EVENTS_MONGODB_URI: env.mongoUri(),
  EVENTS_SERVICE_ADDR: env.serviceAddr("127.0.0.1:50051"),
  FAIL_OPEN: env.flag(true),
});

describe("parseConfig", () => {
  it("applies defaults and coerces values from the environment", () => {
    const config = parseConfig(schema, { EVENTS_MONGODB_URI: "mongodb://127.0.0.1:27117/events", FAIL_OPEN: "false" });
    expect(config).toEqual({
      GRPC_PORT: 50051,
      EVENTS_MONGODB_URI: "mongodb://127.0.0.1:27117/events",
      EVENTS_SERVICE_ADDR: "127.0.0.1:50051",
      FAIL_OPEN: false,
    });
  });

  it("names every missing or malformed variable in one message", () => {
    const parse = () => parseConfig(schema, { GRPC_PORT: "http", EVENTS_SERVICE_ADDR: "no-port" });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/GRPC_PORT/);
    expect(parse).toThrow(/EVENTS_MONGODB_URI/);
    expect(parse).toThrow(/EVENTS_SERVICE_ADDR: expected host:port/);
  });

  it("rejects a store URI of the wrong scheme", () => {
    expect(() => parseConfig(schema, { EVENTS_MONGODB_URI: "postgres://x" })).toThrow(
      /EVENTS_MONGODB_URI: expected a mongodb/,
    );
  });

  it("reads a heap growing percent as a whole number from 0 to 1000, its default when unset", () => {
    const heap = z.object({ HEAP_GROWING_PERCENT: env.heapGrowingPercent(50) });
    expect(parseConfig(heap, {})).toEqual({ HEAP_GROWING_PERCENT: 50 });
    expect(parseConfig(heap, { HEAP_GROWING_PERCENT: "0" })).toEqual({ HEAP_GROWING_PERCENT: 0 });
    for (const bad of ["-1", "1001", "1.5", "half"])
      expect(() => parseConfig(heap, { HEAP_GROWING_PERCENT: bad })).toThrow(/HEAP_GROWING_PERCENT/);
  });
});
