import { LRUCache } from "lru-cache";
import stableStringify from "safe-stable-stringify";
import type { common } from "@odds/proto";
import type { Answer } from "./answer";

export interface ResponseCacheOptions {
  /** Memory bound of all kept answers (bodies and their encodings). */
  maxBytes: number;
  /** Longest an answer is served after it was made, whatever the feed version says. */
  maxAgeMs: number;
}

/**
 * The plan scope of a caller: everything of the plan that shapes an answer, and nothing that
 * names the key, so every key on the same plan shares its answers.
 */
export function planScope(caller: common.Caller): string {
  return stableStringify({
    tier: caller.tier,
    allSports: caller.allSports,
    sportIds: [...caller.sportIds].sort(),
    allLeagues: caller.allLeagues,
    leagueIds: [...caller.leagueIds].sort(),
    allBookmakers: caller.allBookmakers,
    bookmakerIds: [...caller.bookmakerIds].sort(),
    fairOdds: caller.fairOdds,
  }) as string;
}

/**
 * Answers of the read routes per (route, canonical query, plan scope, data version). A new feed
 * version makes every older key unreachable (they age out of the LRU); `maxAgeMs` bounds what a
 * version cannot see (time-relative filters, a history write landing after the events write).
 * Concurrent misses of one key share one load, so a popular query costs one downstream call.
 */
export class ResponseCache {
  private readonly answers: LRUCache<string, Answer>;
  private readonly loading = new Map<string, Promise<Answer>>();

  constructor(options: ResponseCacheOptions) {
    this.answers = new LRUCache<string, Answer>({
      maxSize: options.maxBytes,
      sizeCalculation: (answer) => Math.max(1, answer.size),
      ttl: options.maxAgeMs,
      ttlAutopurge: false,
    });
  }

  static keyOf(route: string, query: unknown, caller: common.Caller, version: string): string {
    return `${route}\n${stableStringify(query) ?? ""}\n${planScope(caller)}\n${version}`;
  }

  async answer(key: string, load: () => Promise<Answer>): Promise<Answer> {
    const kept = this.answers.get(key);
    if (kept) return kept;
    const inFlight = this.loading.get(key);
    if (inFlight) return inFlight;
    const pending = load().finally(() => this.loading.delete(key));
    this.loading.set(key, pending);
    const made = await pending;
    this.answers.set(key, made);
    return made;
  }

  get size(): number {
    return this.answers.size;
  }
}
