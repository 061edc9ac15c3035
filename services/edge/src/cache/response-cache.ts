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

/** A kept answer and the data version it was loaded under. */
interface Kept {
  answer: Answer;
  version: string;
}

/** The load of a key in flight, and the data version it loads under. */
interface Flight {
  version: string;
  pending: Promise<Answer>;
}

/**
 * Answers of the read routes per (route, canonical query, plan scope), each served only under the
 * data version it was loaded at. A new feed version does not drop an answer: the next request waits
 * for a load that names it, as past its max age, so a page the new version left as it was is
 * confirmed by its source rather than made and sent again (a cycle is written in dozens of calls,
 * each a new version, and most of them leave a given page as it was). `maxAgeMs` bounds what a
 * version cannot see (time-relative filters, a history write landing after the events write).
 * A key has one load in flight at a time: concurrent misses of one version share it, and a request
 * under another version waits for it and then renews what it made, so a popular query costs one
 * downstream call, and a page of megabytes is never made several times over while versions change.
 */
export class ResponseCache {
  /** Each answer in an entry of its own: setting a new entry is how the cache counts an answer whose size changed. */
  private readonly answers: LRUCache<string, Kept>;
  /** The load in flight per key. */
  private readonly loading = new Map<string, Flight>();
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

  /** `query`: the canonical form of the request's parameters (`canonicalQuery`), or another string that names them. */
  static keyOf(route: string, query: string, caller: common.Caller): string {
    return `${route}\n${query}\n${planScope(caller)}`;
  }

  /**
   * The answer of `key` kept under the current data `version`, or a load's. `load` is handed the answer
   * it renews (the one served, one past its max age, or one of an older version; undefined when the key
   * has none) and may return that very answer when its source says the content is unchanged.
   */
  async answer(
    key: string,
    version: () => string,
    load: (held: Answer | undefined) => Promise<Answer>,
  ): Promise<Answer> {
    for (;;) {
      const current = version();
      const kept = this.answers.get(key);
      const flight = this.loading.get(key);
      if (kept && kept.version === current) {
        if (!flight && this.refreshAheadMs > 0 && this.answers.getRemainingTTL(key) < this.refreshAheadMs) {
          // A failed refresh is not cached: the kept answer serves until it expires, then a miss reloads.
          this.load(key, current, load, kept.answer).catch(() => undefined);
        }
        return kept.answer;
      }
      if (flight?.version === current) return flight.pending;
      if (!flight) {
        // A request past the max age, or under another version than the kept answer's, waits for the load,
        // as a miss does; a multi-megabyte page the source says is unchanged (a busy machine's slow renewal,
        // a version that changed other events) is then confirmed, not sent again.
        return this.load(key, current, load, (kept ?? this.answers.peek(key, { allowStale: true }))?.answer);
      }
      // A load under another version is in flight: its answer must not serve this request, and a second
      // load beside it would make the page again from nothing. Wait for it, then renew what it made (its
      // failure is its own requests' to report), under the version current by then.
      await flight.pending.catch(() => undefined);
    }
  }

  /**
   * The one load of a key. A reload that returns the answer it renews (its source said unchanged) or
   * renders the same bytes keeps that answer (and the encodings already made of it), with its age
   * restarted and its version the load's. The age counts from the load's start, not its end: the data
   * it read may be as old as that, and a slow load (a loaded machine, a store stalling) must not
   * stretch how long a superseded answer is served. A load slower than the max age serves its own
   * request and is kept past its max age: never served again, only named by the next load.
   */
  private load(
    key: string,
    version: string,
    load: (held: Answer | undefined) => Promise<Answer>,
    renewing: Answer | undefined,
  ): Promise<Answer> {
    const startedAt = performance.now();
    const pending = load(renewing)
      .then((made) => {
        const kept = renewing && renewing.etag === made.etag ? renewing : made;
        edgeMetrics.answerLoads.inc({ outcome: loadOutcome(renewing, made) });
        this.answers.set(key, { answer: kept, version }, { start: startedAt });
        edgeMetrics.answerCacheBytes.set(this.keptBytes);
        kept.onEncoded(() => this.recount(key, kept));
        return kept;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, { version, pending });
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
