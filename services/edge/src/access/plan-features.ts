import type { usage } from "@odds/proto";
import type { Middleware } from "koa";
import type { KeyedState } from "../http/admission";
import { ApiError } from "../http/errors";

/** Parts of v1 that only some plans include (the Pro plan's, in the default plans file). */
export type PlanFeature = "history" | "stream";

/** Whether the key's plan includes the feature: v1 history (and its files), or at least one odds stream. */
export function planIncludes(plan: usage.Plan, feature: PlanFeature): boolean {
  return feature === "history" ? plan.history : plan.maxStreams > 0;
}

/** 403 naming the plan the feature needs and the key's own. */
export function planRequired(what: string, plan: usage.Plan): ApiError {
  return new ApiError(403, "Plan required", `${what} is part of the pro plan; this key's plan is ${plan.tier}`);
}

/** Refuses, before anything is counted, a request for a feature the key's plan does not include. */
export function requirePlanFeature(feature: PlanFeature, what: string): Middleware {
  return async (ctx, next) => {
    const { plan } = (ctx.state as KeyedState).grant;
    if (!planIncludes(plan, feature)) throw planRequired(what, plan);
    await next();
  };
}
