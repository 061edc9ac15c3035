import { ConfigError, parseConfig } from "@odds/platform";
import { DEFAULT_PLANS_FILE, usageConfigSchema } from "./config";

const base = { USAGE_MONGODB_URI: "mongodb://127.0.0.1:27017/usage" };

describe("usage configuration", () => {
  it("defaults the port, the committed plans file and no bootstrap keys", () => {
    expect(parseConfig(usageConfigSchema, base)).toMatchObject({
      GRPC_PORT: 50054,
      PLANS_FILE: DEFAULT_PLANS_FILE,
      BOOTSTRAP_API_KEYS: [],
    });
  });

  it("parses BOOTSTRAP_API_KEYS as a JSON array of {apiKey, tier, email}", () => {
    const keys = [{ apiKey: "odds_dev_0123456789abcdef", tier: "lite", email: "dev@localhost" }];
    expect(
      parseConfig(usageConfigSchema, { ...base, BOOTSTRAP_API_KEYS: JSON.stringify(keys) }).BOOTSTRAP_API_KEYS,
    ).toEqual(keys);
  });

  it("names BOOTSTRAP_API_KEYS when it is not JSON or has an unknown tier, without echoing the keys", () => {
    expect(() => parseConfig(usageConfigSchema, { ...base, BOOTSTRAP_API_KEYS: "not json" })).toThrow(
      /BOOTSTRAP_API_KEYS/,
    );
    const secret = "odds_dev_secret_value_123456";
    const bad = JSON.stringify([{ apiKey: secret, tier: "gold" }]);
    let message = "";
    try {
      parseConfig(usageConfigSchema, { ...base, BOOTSTRAP_API_KEYS: bad });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/BOOTSTRAP_API_KEYS\.0\.tier/);
    expect(message).not.toContain(secret);
  });

  it("names USAGE_MONGODB_URI when it is missing", () => {
    expect(() => parseConfig(usageConfigSchema, {})).toThrow(/USAGE_MONGODB_URI/);
  });
});
