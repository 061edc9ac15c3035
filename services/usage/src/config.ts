import { baseConfigSchema, env } from "@odds/platform";
import { join } from "node:path";
import { z } from "zod";
import { TIERS } from "./plans";

/** One key the deployment seeds at start (the local stack passes its dev keys this way). */
const bootstrapKeySchema = z.object({
  apiKey: z.string().min(16, "apiKey: at least 16 characters"),
  tier: z.enum(TIERS),
  email: z.string().optional(),
  customerID: z.string().optional(),
});
export type BootstrapKey = z.infer<typeof bootstrapKeySchema>;

export const DEFAULT_PLANS_FILE = join(__dirname, "..", "plans.yaml");

export const usageConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: env.port(50054),
  USAGE_MONGODB_URI: env.mongoUri(),
  /** The edges' Redis: a key's record changed here gets a new revision there (see KeyRevisions). */
  REDIS_URL: env.redisUrl().default("redis://127.0.0.1:6379"),
  PLANS_FILE: z.string().min(1).default(DEFAULT_PLANS_FILE),
  BOOTSTRAP_API_KEYS: z
    .string()
    .default("[]")
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "expected a JSON array of {apiKey, tier, email}" });
        return z.NEVER;
      }
    })
    .pipe(z.array(bootstrapKeySchema)),
});

export type UsageConfig = z.output<typeof usageConfigSchema>;
