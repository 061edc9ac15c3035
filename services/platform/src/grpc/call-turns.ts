import { setImmediate as nextTurn } from "node:timers/promises";
import { WriteQueue } from "../write-queue";

/**
 * Starts calls two event-loop turns apart, in the order they came.
 *
 * grpc-js hands a server every call that one socket read brought within the same turn, and Node's HTTP/2
 * session writes what a turn's calls answered together, once the turn ends. A handler that makes its answer
 * without waiting (a page of events or of markets, from memory) then holds every answer of the batch until the
 * last is made, while the caller, on another core, has nothing to do but wait for them: the two processes take
 * turns instead of working at once. Spaced, each call is answered whole before the next one runs: its headers
 * and message leave in the turn after it, and its trailers, which HTTP/2 asks for once the message is sent, in
 * the turn after that. The caller works on the answer while this process makes the next.
 *
 * Only the start is spaced: a handler that waits (on a store, a timer) lets the next call start two turns
 * later, and calls still overlap while they wait.
 */
export class CallTurns {
  /** The starts, one at a time: each settles once its call has started, not answered. */
  private readonly starts = new WriteQueue();

  /** Runs `start` two turns after the call before it started; its promise settles as `start`'s does. */
  start<T>(start: () => Promise<T>): Promise<T> {
    return this.starts
      .run(async () => {
        await nextTurn();
        await nextTurn();
        return { answer: start() };
      })
      .then(({ answer }) => answer);
  }
}
