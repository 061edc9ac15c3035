import { v1 } from "@odds/proto";
import { z } from "zod";

/** Thrown (and reported by loadConfig) when the environment does not satisfy a service's schema. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Parses a service's environment against its schema. On failure the message names every
 * bad variable; `loadConfigOrExit` turns that into a clear line on stderr and exit code 1.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(env)"}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
}

export function loadConfigOrExit<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** Reusable environment variable shapes, so every service reads the same kinds of value the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** host:port of a gRPC service, as `<NAME>_SERVICE_ADDR`. */
  serviceAddr: (fallback?: string) => {
    const addr = z.string().regex(/^[^\s:]+:\d+$/, "expected host:port");
    return fallback === undefined ? addr : addr.default(fallback);
  },
  mongoUri: () => z.string().regex(/^mongodb(\+srv)?:\/\//, "expected a mongodb:// or mongodb+srv:// URI"),
  redisUrl: () => z.string().regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL"),
  milliseconds: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  flag: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0"])
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true" || v === "1"),
  /** A comma-separated list; blanks dropped, unset = empty. */
  list: () =>
    z
      .string()
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
      ),
  logLevel: () => z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** V8's heap growing factor, in percent (`setHeapGrowingPercent`); 0 leaves V8's own. */
  heapGrowingPercent: (fallback: number) => z.coerce.number().int().min(0).max(1_000).default(fallback),
};

/** Variables every service reads. */
export const baseConfigSchema = z.object({
  LOG_LEVEL: env.logLevel(),
  METRICS_PORT: env.port(0),
  SHUTDOWN_TIMEOUT_MS: env.milliseconds(10_000),
});

/**
 * HISTORY_CONVERTED_LEAGUES: the leagues whose v1 history starts at their converted earlier recordings
 * (the per-league history start setting), read alike by catalogue (shows it) and history (enforces it).
 */
export const historyConvertedLeagues = () =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined ? v1.DEFAULT_CONVERTED_LEAGUES : env.list().parse(value)));
