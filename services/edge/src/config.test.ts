import { parseConfig } from "@odds/platform";
import { edgeConfigSchema } from "./config";

const secret = { CURSOR_SECRET: "a-cursor-secret-of-at-least-32-characters" };

describe("edge configuration", () => {
  it("defaults to failing open, a 5 s plan cache, v2 not retired and the local service addresses", () => {
    expect(parseConfig(edgeConfigSchema, secret)).toMatchObject({
      HTTP_PORT: 8080,
      RATE_LIMIT_FAIL_MODE: "open",
      PLAN_CACHE_TTL_MS: 5_000,
      V2_RETIRED: false,
      USAGE_SERVICE_ADDR: "127.0.0.1:50054",
    });
  });

  it("reads V2_RETIRED and RATE_LIMIT_FAIL_MODE", () => {
    expect(
      parseConfig(edgeConfigSchema, { ...secret, V2_RETIRED: "true", RATE_LIMIT_FAIL_MODE: "closed" }),
    ).toMatchObject({
      V2_RETIRED: true,
      RATE_LIMIT_FAIL_MODE: "closed",
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => parseConfig(edgeConfigSchema, { ...secret, RATE_LIMIT_FAIL_MODE: "maybe" })).toThrow(
      /RATE_LIMIT_FAIL_MODE/,
    );
    expect(() => parseConfig(edgeConfigSchema, { ...secret, REDIS_URL: "localhost:6379" })).toThrow(/REDIS_URL/);
    expect(() => parseConfig(edgeConfigSchema, { ...secret, USAGE_SERVICE_ADDR: "usage" })).toThrow(
      /USAGE_SERVICE_ADDR/,
    );
  });

  it("requires a cursor secret of at least 32 characters, and reads earlier ones for rotation", () => {
    expect(() => parseConfig(edgeConfigSchema, {})).toThrow(/CURSOR_SECRET: is required/);
    expect(() => parseConfig(edgeConfigSchema, { CURSOR_SECRET: "short" })).toThrow(/CURSOR_SECRET: needs at least 32/);
    const previous = "an-earlier-cursor-secret-32-characters-long";
    expect(
      parseConfig(edgeConfigSchema, { ...secret, CURSOR_SECRETS_PREVIOUS: previous }).CURSOR_SECRETS_PREVIOUS,
    ).toEqual([previous]);
    expect(() => parseConfig(edgeConfigSchema, { ...secret, CURSOR_SECRETS_PREVIOUS: "short" })).toThrow(
      /CURSOR_SECRETS_PREVIOUS/,
    );
  });
});
