import { v1 } from "@odds/proto";
import { z } from "zod";

/**
 * The v1 odds stream's wire protocol (WebSocket, JSON text frames), defined once: the stream
 * uses it, the README and the docs page document it, the tests check against it.
 */

export const STREAM_PATH = "/v1/stream/odds";
/** Events one stream may follow, all of one league. */
export const STREAM_MAX_EVENTS = 20;

/** Close codes (4000-4999 are the application's) and the reason sent with each. */
export const STREAM_CLOSE = {
  lifetime: { code: 4000, reason: "stream lifetime reached; reconnect to continue" },
  badSubscription: { code: 4400, reason: "invalid subscription" },
  invalidKey: { code: 4401, reason: "send a valid key as Authorization: Bearer <API_KEY>" },
  planRequired: { code: 4403, reason: "the odds stream is part of the pro plan" },
  notFound: { code: 4404, reason: "no such event, or not visible to the key's plan" },
  subscriptionTimeout: { code: 4408, reason: "no subscription received in time" },
  tooManyStreams: { code: 4409, reason: "too many open streams for this key" },
  keyDeactivated: { code: 4410, reason: "the key was deactivated" },
  quotaExhausted: { code: 4429, reason: "a rate-limit window of the key's plan is exhausted" },
  unavailable: { code: 1013, reason: "a service behind the stream is unavailable; retry later" },
  shutdown: { code: 1001, reason: "server restarting; reconnect" },
} as const satisfies Record<string, { code: number; reason: string }>;

export type StreamClose = (typeof STREAM_CLOSE)[keyof typeof STREAM_CLOSE];

/** The one message a client sends: which events to follow, and (for browsers) the key. */
export const subscription = z.strictObject({
  type: z.literal("subscribe"),
  event_ids: z
    .array(z.string().regex(v1.v1IdPattern("event"), { error: "expected v1 event ids (ev_...)" }))
    .min(1, { error: "expected at least one event id" })
    .max(STREAM_MAX_EVENTS, { error: `at most ${STREAM_MAX_EVENTS} events` }),
  /** "Bearer <API_KEY>", for clients that cannot set the Authorization header (browsers). */
  authorization: z.string().optional(),
});
export type Subscription = z.output<typeof subscription>;

/** Server messages. A snapshot is sent at once, then after every cycle that changed the subscribed odds. */
export interface SnapshotMessage {
  type: "snapshot";
  /** The feed cycle the odds are from (UTC ISO 8601). */
  cycle_at: string;
  /** One EventOdds (group_by=market) per subscribed event, as GET /v1/odds serves them. */
  data: v1.V1EventOdds[];
  meta: { count: number; cost: { objects: number } };
}

export interface HeartbeatMessage {
  type: "heartbeat";
  at: string;
  /** The latest cycle seen, unchanged for the subscribed odds since the last snapshot. */
  cycle_at: string;
}

/** v1 usage of one EventOdds: the record, plus each bookmaker price that is not null. */
export function objectsOfEventOdds(odds: v1.V1EventOdds): number {
  let objects = 1;
  for (const market of odds.markets ?? []) {
    for (const outcome of market.outcomes) objects += outcome.prices.filter((p) => p.decimal_odds !== null).length;
  }
  for (const book of odds.bookmakers ?? []) {
    for (const market of book.markets) objects += market.outcomes.filter((o) => o.decimal_odds !== null).length;
  }
  return objects;
}
