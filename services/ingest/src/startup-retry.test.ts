import type { Logger } from "@odds/platform";
import { retryUntilDone } from "./startup-retry";

function recordingLogger(): { logger: Logger; failures: Array<{ step: string; attempt: number }> } {
  const failures: Array<{ step: string; attempt: number }> = [];
  const logger = { error: (fields: { step: string; attempt: number }) => failures.push(fields) } as unknown as Logger;
  return { logger, failures };
}

describe("retrying a startup step", () => {
  test("a step that fails twice is run until it succeeds, and each failure is logged with its attempt", async () => {
    const { logger, failures } = recordingLogger();
    let runs = 0;
    await retryUntilDone(logger, new AbortController().signal, "backfill", async () => {
      runs += 1;
      if (runs < 3) throw new Error(`failure ${runs}`);
    });
    expect(runs).toBe(3);
    expect(failures.map((f) => [f.step, f.attempt])).toEqual([
      ["backfill", 1],
      ["backfill", 2],
    ]);
  });

  test("once the process is asked to stop, the step is not run again and the retry returns without an error", async () => {
    const { logger } = recordingLogger();
    const abort = new AbortController();
    let runs = 0;
    await retryUntilDone(logger, abort.signal, "first cycle", async () => {
      runs += 1;
      abort.abort();
      throw new Error("store down");
    });
    expect(runs).toBe(1);
  });

  test("a step asked to stop before it began is never run", async () => {
    const { logger } = recordingLogger();
    const abort = new AbortController();
    abort.abort();
    let runs = 0;
    await retryUntilDone(logger, abort.signal, "backfill", async () => {
      runs += 1;
    });
    expect(runs).toBe(0);
  });
});
