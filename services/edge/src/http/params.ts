import type { pageLimits } from "@odds/proto";
import { z } from "zod";
import { parseDateTime } from "./date-time";

/**
 * Query parameter shapes shared by every route schema. Each rejects a malformed value
 * with a message; the edge prefixes it with the parameter name in the 400 body.
 */

/** One value or a comma-separated list sent as one string; blanks dropped. */
export const csvList = () =>
  z
    .string()
    .transform((raw) =>
      raw
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .meta({ description: "one value or a comma-separated list" });

/** true = only matching, false = only non-matching, omitted = all. */
export const booleanFlag = () =>
  z
    .enum(["true", "false"], { error: "expected true or false" })
    .transform((raw) => raw === "true")
    .meta({ type: "boolean" });

/** The contract's date-time (see date-time.ts for what it admits); parsed to Unix milliseconds. */
export const dateTime = () =>
  z
    .string()
    .transform((raw, ctx) => {
      const ms = parseDateTime(raw);
      if (ms === undefined) {
        ctx.addIssue({
          code: "custom",
          message: "expected an ISO 8601 date-time: YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.sss]] with Z or ±hh:mm",
        });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ format: "date-time" });

/** Page size: an integer from 1 to max (the route's PAGE_LIMITS entry); above max is a 400 naming the maximum. */
export const pageLimit = ({ default: defaultValue, max }: pageLimits.PageLimit) =>
  z
    .string()
    .regex(/^\d+$/, { error: `expected an integer from 1 to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: `expected an integer from 1 to ${max}` })
        .max(max, { error: `at most ${max}` }),
    )
    .default(defaultValue)
    .meta({ type: "integer", minimum: 1, maximum: max, default: defaultValue });

/** The nextCursor of the previous page, unchanged; its seal is checked by the edge (http/paging.ts), its position by the issuer. */
export const cursor = () =>
  z
    .string()
    .min(1)
    .max(2048, { error: "is not a cursor returned by this API" })
    .meta({ description: "nextCursor of the previous response, unchanged" });
