import { readFileSync } from "node:fs";
import { objects } from "@odds/proto";
import { parse } from "yaml";
import { z } from "zod";

export const TIERS = objects.TIERS;
export type Tier = objects.Tier;

export const RATE_WINDOWS = objects.RATE_WINDOWS;
export type RateWindow = objects.RateWindow;

const limitValue = z.number().int().positive().nullable();
const windowLimitSchema = z.object({ "max-requests": limitValue, "max-entities": limitValue }).strict();
const scopeSchema = z.union([z.literal("all"), z.array(z.string().min(1)).min(1)]);
const bookmakerCapSchema = z.union([
  z.literal("all"),
  z.object({ top: z.number().int().positive() }).strict(),
  z.object({ only: z.array(z.string().min(1)).min(1) }).strict(),
]);

const tierPlanSchema = z
  .object({
    sports: scopeSchema,
    leagues: scopeSchema,
    bookmakers: bookmakerCapSchema,
    fairOdds: z.boolean(),
    /** v1 odds history and history files. */
    history: z.boolean().default(false),
    /** v1 odds streams a key may hold open at once (0: none). */
    streams: z.number().int().min(0).default(0),
    limits: z.object(Object.fromEntries(RATE_WINDOWS.map((w) => [w, windowLimitSchema.optional()]))).strict(),
  })
  .strict();

const plansFileSchema = z
  .object({
    bookmakerOrder: z.array(z.string().min(1)).default([]),
    tiers: z
      .object(Object.fromEntries(TIERS.map((tier) => [tier, tierPlanSchema])) as Record<Tier, typeof tierPlanSchema>)
      .strict(),
  })
  .strict();

export interface WindowLimit {
  window: RateWindow;
  maxRequests: number | null;
  maxEntities: number | null;
}

/** A tier's resolved plan: what the key may see and how much it may read. */
export interface Plan {
  tier: Tier;
  /** null = every sport (likewise leagues and bookmakers). */
  sportIDs: string[] | null;
  leagueIDs: string[] | null;
  bookmakerIDs: string[] | null;
  fairOdds: boolean;
  /** v1 odds history and history files (the Pro plan). */
  history: boolean;
  /** v1 odds streams a key may hold open at once (0: none). */
  maxStreams: number;
  limits: WindowLimit[];
}

export class PlanFileError extends Error {
  override name = "PlanFileError";
}

/** The plans of every tier, read once from the YAML plans file. */
export class PlanBook {
  private constructor(private readonly plans: Record<Tier, Plan>) {}

  static fromYaml(text: string, source = "plans file"): PlanBook {
    const parsed = plansFileSchema.safeParse(parse(text));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
      throw new PlanFileError(`Invalid ${source}: ${problems.join("; ")}`);
    }
    const { bookmakerOrder, tiers } = parsed.data;
    const resolve = (tier: Tier): Plan => {
      const plan = tiers[tier];
      const cap = plan.bookmakers;
      let bookmakerIDs: string[] | null = null;
      if (cap !== "all") {
        if ("top" in cap && bookmakerOrder.length === 0) {
          throw new PlanFileError(`Invalid ${source}: tiers.${tier}.bookmakers.top needs bookmakerOrder`);
        }
        bookmakerIDs = "top" in cap ? bookmakerOrder.slice(0, cap.top) : cap.only;
      }
      return {
        tier,
        sportIDs: plan.sports === "all" ? null : plan.sports,
        leagueIDs: plan.leagues === "all" ? null : plan.leagues,
        bookmakerIDs,
        fairOdds: plan.fairOdds,
        history: plan.history,
        maxStreams: plan.streams,
        limits: RATE_WINDOWS.map((window) => ({
          window,
          maxRequests: plan.limits[window]?.["max-requests"] ?? null,
          maxEntities: plan.limits[window]?.["max-entities"] ?? null,
        })),
      };
    };
    return new PlanBook(Object.fromEntries(TIERS.map((tier) => [tier, resolve(tier)])) as Record<Tier, Plan>);
  }

  static fromFile(path: string): PlanBook {
    return PlanBook.fromYaml(readFileSync(path, "utf8"), path);
  }

  planFor(tier: Tier): Plan {
    return this.plans[tier];
  }
}
