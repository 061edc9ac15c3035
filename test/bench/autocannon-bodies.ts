// autocannon (8.0 and 9.0 alike) keeps every answer's body as a string, chunk by chunk (`req.body += data` in
// lib/pipelinedRequestsQueue.js), for its `onResponse`, `verifyBody` and `expectBody` hooks, whether or not one is
// set. The bench sets none and never reads a body, and on big pages that keeping is most of the load process's work:
// a bare server's 6.3 MB JSON answer cost the load process 16-18 ms of CPU with it and 3.9 without, a 29 MB one
// 87-101 ms and 15-16, a 1.8 MB gzip one (decoded as UTF-8, which compressed bytes almost never are) 31-34 ms and
// 0.9; a 650-byte answer 0.04 either way. On two cores shared with the stack, that is CPU taken from what is measured.
// docs/performance.md, "The load process kept every body".
import { createRequire } from "node:module";

interface BodyQueue {
  prototype: { addBody: (data: Buffer) => void };
}

const queueModule = "autocannon/lib/pipelinedRequestsQueue.js";

/** autocannon's queue of requests awaiting answers, where a body's chunks are kept. */
export function autocannonBodyQueue(): BodyQueue {
  const queue = createRequire(__filename)(queueModule) as Partial<BodyQueue>;
  if (typeof queue.prototype?.addBody !== "function") {
    // An autocannon that keeps bodies elsewhere would silently make big pages cost the load process again.
    throw new Error(`${queueModule} has no addBody: look again at how this autocannon keeps answers' bodies`);
  }
  return queue as BodyQueue;
}

/** From now on, this process's autocannon counts each answer's bytes but keeps none of its body. */
export function discardAnswerBodies(): void {
  autocannonBodyQueue().prototype.addBody = () => {};
}
