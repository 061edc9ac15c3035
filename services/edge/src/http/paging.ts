import type { CursorSeal } from "@odds/platform";
import type { common } from "@odds/proto";
import { z } from "zod";
import { planScope } from "../cache/response-cache";
import type { RouteAnswer } from "./route";

/** A route is paged when its query declares `cursor`: only then does it take a cursor back. */
export function isPaged(query: z.ZodType): boolean {
  return query instanceof z.ZodObject && "cursor" in query.shape;
}

/**
 * The cursors of one paged request: the caller's sealed cursor opened (bound to this route,
 * the caller's plan scope and the other parameters), and the issuer's next cursor sealed the
 * same way. `limit` may change between pages; anything else may not.
 */
export class PagedRequest<P extends { cursor?: string }> {
  private readonly binding: { route: string; scope: string; query: unknown };

  constructor(
    private readonly seal: CursorSeal,
    route: string,
    caller: common.Caller,
    private readonly params: P,
  ) {
    const { cursor: _cursor, limit: _limit, ...filters } = params as P & { limit?: unknown };
    this.binding = { route, scope: planScope(caller), query: filters };
  }

  /** The parameters with the issuer's own cursor in place of the sealed one (400 naming `cursor` if it fails). */
  opened(): P {
    if (this.params.cursor === undefined) return this.params;
    return { ...this.params, cursor: this.seal.open(this.params.cursor, this.binding) };
  }

  /** The issuer's next cursor sealed to this request's binding (null: no next page). */
  sealedCursor(nextCursor: string | null): string | null {
    return nextCursor === null ? null : this.seal.seal(nextCursor, this.binding);
  }

  sealed(answer: RouteAnswer): RouteAnswer {
    if (!("items" in answer) || answer.nextCursor === null) return answer;
    return { ...answer, nextCursor: this.sealedCursor(answer.nextCursor) };
  }
}
