import { v1 } from "@odds/proto";
import { z } from "zod";
import { csvList } from "../http/params";

/** A v1 id of one kind; anything else (a v2 id included) is a 400 naming the parameter. */
export const v1IdParam = (kind: v1.V1IdKind) => {
  const { prefix, length } = v1.V1_ID_KINDS[kind];
  return z
    .string()
    .regex(v1.v1IdPattern(kind), { error: `expected a v1 ${kind} id: ${prefix} and ${length} characters of a-z0-9` })
    .meta({ description: `v1 ${kind} id (${prefix}...)` });
};

/** One or a comma-separated list of v1 ids of one kind, at most `max`. */
export const v1IdList = (kind: v1.V1IdKind, max = 100) =>
  csvList()
    .pipe(z.array(v1IdParam(kind)).max(max, { error: `at most ${max} ids` }))
    .meta({ description: `one or a comma-separated list of v1 ${kind} ids (at most ${max})` });

/** The group_by of odds routes: by market and outcome (default) or one block per bookmaker. */
export const groupBy = () =>
  z
    .enum(v1.V1_ODDS_GROUPINGS, { error: `expected one of ${v1.V1_ODDS_GROUPINGS.join(", ")}` })
    .default("market")
    .meta({ description: "market (default): markets with outcomes and prices; bookmaker: one block per bookmaker" });

export const eventStatus = () =>
  z
    .enum(v1.V1_EVENT_STATUSES, { error: `expected one of ${v1.V1_EVENT_STATUSES.join(", ")}` })
    .meta({ description: "ended, finalized and cancelled lift the 24-hour cut-off" });
