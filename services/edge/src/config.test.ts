import { parseConfig } from "@odds/platform";
import { edgeConfigSchema } from "./config";

describe("edge configuration", () => {
  it("defaults to failing open, a 5 s plan cache, v2 not retired and the local service addresses", () => {
    expect(parseConfig(edgeConfigSchema, {})).toMatchObject({
      HTTP_PORT: 8080,
      RATE_LIMIT_FAIL_MODE: "open",
      PLAN_CACHE_TTL_MS: 5_000,
      V2_RETIRED: false,
      USAGE_SERVICE_ADDR: "127.0.0.1:50054",
    });
  });

  it("reads V2_RETIRED and RATE_LIMIT_FAIL_MODE", () => {
    expect(parseConfig(edgeConfigSchema, { V2_RETIRED: "true", RATE_LIMIT_FAIL_MODE: "closed" })).toMatchObject({
      V2_RETIRED: true,
      RATE_LIMIT_FAIL_MODE: "closed",
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => parseConfig(edgeConfigSchema, { RATE_LIMIT_FAIL_MODE: "maybe" })).toThrow(/RATE_LIMIT_FAIL_MODE/);
    expect(() => parseConfig(edgeConfigSchema, { REDIS_URL: "localhost:6379" })).toThrow(/REDIS_URL/);
    expect(() => parseConfig(edgeConfigSchema, { USAGE_SERVICE_ADDR: "usage" })).toThrow(/USAGE_SERVICE_ADDR/);
  });
});
