import { z } from "zod";

export const TICK_KINDS = ["open", "move", "limit", "close"] as const;

/** The contract's OddsHistoryTick (GET /v2/odds/history/). */
export const oddsHistoryTick = z
  .object({
    eventID: z.string(),
    oddID: z.string(),
    bookmakerID: z.string(),
    changedAt: z.iso.datetime(),
    kind: z.enum(TICK_KINDS).meta({
      description:
        "open (first quote seen, or back after a close), move (price, line or main-line status changed), " +
        "limit (only the bet limit changed), close (quote withdrawn or suspended)",
    }),
    bookOdds: z.string().nullable().meta({ description: "new American price; null on close" }),
    decimalOdds: z.number().nullable(),
    previousBookOdds: z.string().nullable().meta({ description: "replaced American price; null on open" }),
    previousDecimalOdds: z.number().nullable(),
    line: z.number().nullable().meta({ description: "spread or total; null for moneylines and yes/no markets" }),
    isMainLine: z.boolean().nullable(),
    layOdds: z.number().nullable().meta({ description: "exchange lay price" }),
    maxStake: z.number().nullable().meta({ description: "bet limit after the change" }),
    previousMaxStake: z.number().nullable().meta({ description: "bet limit before the change" }),
  })
  .meta({ id: "OddsHistoryTick" });

export type OddsHistoryTick = z.infer<typeof oddsHistoryTick>;
