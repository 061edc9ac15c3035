import { LRUCache } from "lru-cache";
import stableStringify from "safe-stable-stringify";
import type { common } from "@odds/proto";
import { edgeMetrics } from "../system/metrics";
import type { Answer } from "./answer";

export interface ResponseCacheOptions {
  /** Memory bound of all kept answers (bodies and their encodings). */
  maxBytes: number;
  /**
   * Longest an answer is served after its load began, whatever the feed version says: a write
   * acknowledged before a read's load began is seen by every answer served more than this after it.
   */
  maxAgeMs: number;
  /**
   * A hit on an answer with less than this left of its max age reloads it in the background (the
   * hit is served the kept answer), so a polled answer is renewed before it expires and no request
   * waits on its reload. 0: answers are reloaded only when a request misses.
   */
  refreshAheadMs?: number;
}

/**
 * The plan scope of a caller: everything of the plan that shapes an answer, and nothing that
 * names the key, so every key on the same plan shares its answers.
 */
export function planScope(caller: common.Caller): string {
  let scope = scopes.get(caller);
  if (scope === undefined) {
    scope = renderScope(caller);
    scopes.set(caller, scope);
  }
  return scope;
}

/** A key's caller is made once per grant and kept with it, so its scope is rendered once per grant. */
const scopes = new WeakMap<common.Caller, string>();

function renderScope(caller: common.Caller): string {
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

/** A kept answer, the data version it was loaded under, and when its load began (`performance.now()`). */
interface Kept {
  answer: Answer;
  version: string;
  startedAt: number;
}

/**
 * Answers of the read routes per (route, canonical query, plan scope), each served only under the
 * data version it was loaded at. A new feed version does not drop an answer: the next request waits
 * for a load that names it, as past its max age, so a page the new version left as it was is
 * confirmed by its source rather than made and sent again (a cycle is written in dozens of calls,
 * each a new version, and most of them leave a given page as it was). `maxAgeMs` bounds what a
 * version cannot see (time-relative filters, a history write landing after the events write).
 * Concurrent misses of one key and version share one load, so a popular query costs one downstream call.
 */
export class ResponseCache {
  /** Each answer in an entry of its own: setting a new entry is how the cache counts an answer whose size changed. */
  private readonly answers: LRUCache<string, Kept>;
  /** Loads in flight, per key and version. */
  private readonly loading = new Map<string, Promise<Answer>>();
  private readonly refreshAheadMs: number;

  constructor(options: ResponseCacheOptions) {
    this.refreshAheadMs = Math.min(options.refreshAheadMs ?? 0, options.maxAgeMs);
    this.answers = new LRUCache<string, Kept>({
      maxSize: options.maxBytes,
      // The key is kept as well: about a byte a character (V8 keeps an ASCII string one byte a character).
      sizeCalculation: ({ answer }, key) => answer.size + key.length,
      ttl: options.maxAgeMs,
      ttlAutopurge: false,
      // An answer past its max age is no longer served, but kept (within the size bound) for the next
      // load of its key to name: a source that says it is unchanged then sends nothing again.
      noDeleteOnStaleGet: true,
      // The clock `load` reads an answer's start from.
      perf: performance,
    });
  }

  static keyOf(route: string, query: unknown, caller: common.Caller): string {
    return `${route}\n${stableStringify(query) ?? ""}\n${planScope(caller)}`;
  }

  /**
   * The answer of `key` kept under data `version`, or a load's. `load` is handed the answer it renews
   * (the one served, one past its max age, or one of an older version; undefined when the key has
   * none) and may return that very answer when its source says the content is unchanged.
   */
  async answer(key: string, version: string, load: (held: Answer | undefined) => Promise<Answer>): Promise<Answer> {
    const kept = this.answers.get(key);
    if (kept && kept.version === version) {
      if (this.refreshAheadMs > 0 && this.answers.getRemainingTTL(key) < this.refreshAheadMs) {
        // A failed refresh is not cached: the kept answer serves until it expires, then a miss reloads.
        this.load(key, version, load, kept.answer).catch(() => undefined);
      }
      return kept.answer;
    }
    // A request past the max age, or under another version than the kept answer's, waits for the load,
    // as a miss does; a multi-megabyte page the source says is unchanged (a busy machine's slow renewal,
    // a version that changed other events) is then confirmed, not sent again.
    return this.load(key, version, load, (kept ?? this.answers.peek(key, { allowStale: true }))?.answer);
  }

  /**
   * One load of a key and version at a time. A reload that returns the answer it renews (its source
   * said unchanged) or renders the same bytes keeps that answer (and the encodings already made of
   * it), with its age restarted and its version the load's. The age counts from the load's start,
   * not its end: the data it read may be as old as that, and a slow load (a loaded machine, a store
   * stalling) must not stretch how long a superseded answer is served. A load slower than the max
   * age serves its own request and is kept past its max age: never served again, only named by the
   * next load. A load that began before the kept answer's (an older version's, ending late) answers
   * its own requests and leaves the kept answer be.
   */
  private load(
    key: string,
    version: string,
    load: (held: Answer | undefined) => Promise<Answer>,
    renewing: Answer | undefined,
  ): Promise<Answer> {
    const flight = `${version}\n${key}`;
    const inFlight = this.loading.get(flight);
    if (inFlight) return inFlight;
    const startedAt = performance.now();
    const pending = load(renewing)
      .then((made) => {
        const kept = renewing && renewing.etag === made.etag ? renewing : made;
        edgeMetrics.answerLoads.inc({ outcome: loadOutcome(renewing, made) });
        const held = this.answers.peek(key, { allowStale: true });
        if (held && held.startedAt > startedAt) return kept;
        this.answers.set(key, { answer: kept, version, startedAt }, { start: startedAt });
        edgeMetrics.answerCacheBytes.set(this.keptBytes);
        kept.onEncoded(() => this.recount(key, kept));
        return kept;
      })
      .finally(() => this.loading.delete(flight));
    this.loading.set(flight, pending);
    return pending;
  }

  /** An encoding of a kept answer was made: its entry is counted again, its age and version unchanged. */
  private recount(key: string, answer: Answer): void {
    const held = this.answers.peek(key, { allowStale: true });
    if (held?.answer !== answer) return;
    this.answers.set(key, { ...held }, { noUpdateTTL: true });
    edgeMetrics.answerCacheBytes.set(this.keptBytes);
  }

  /** How many answers are kept. */
  get size(): number {
    return this.answers.size;
  }

  /** The bytes the kept answers count, against `maxBytes`. */
  get keptBytes(): number {
    return this.answers.calculatedSize;
  }
}

/** How a load ended, for `edge_answer_loads_total`. */
function loadOutcome(renewing: Answer | undefined, made: Answer): string {
  if (!renewing) return "miss";
  if (made === renewing) return "unchanged";
  return made.etag === renewing.etag ? "same_bytes" : "changed";
}
