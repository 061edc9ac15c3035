import { constants } from "node:os";

/**
 * What a command started, stopped when the command is interrupted (SIGINT from Ctrl-C, or SIGTERM)
 * whatever it was awaiting at the time, before it exits non-zero (128 + the signal's number, as a
 * shell reports a process killed by it). `signal` aborts on the first interrupt: a stack still
 * starting (`startStack`'s `signal`) stops what it started and rejects.
 */
export class Interruption {
  private readonly controller = new AbortController();
  private readonly owned = new Set<() => Promise<unknown>>();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Registers how to stop something the command started; the function returned forgets it (stopped already). */
  own(stop: () => Promise<unknown>): () => void {
    this.owned.add(stop);
    return () => this.owned.delete(stop);
  }

  /**
   * Owns something still starting whose start took this `signal` (interrupted while it starts, it
   * stops what it started itself and rejects): once started, it is stopped whole.
   */
  ownStarting(starting: Promise<{ stop(): Promise<unknown> }>): () => void {
    return this.own(async () => (await starting.catch(() => undefined))?.stop());
  }

  /** Installs the SIGINT and SIGTERM handlers; `notify` says what happens (stderr by default). */
  listen(notify: (message: string) => void = (message) => process.stderr.write(`${message}\n`)): void {
    const interrupted = (signal: NodeJS.Signals) => {
      if (this.controller.signal.aborted) {
        notify(`${signal}: still stopping what was started`);
        return;
      }
      notify(`${signal}: stopping everything started, then exiting`);
      const code = 128 + constants.signals[signal];
      process.exitCode = code;
      this.controller.abort(new Error(`interrupted by ${signal}`));
      void Promise.allSettled([...this.owned].map((stop) => stop())).then(() => process.exit(code));
    };
    process.on("SIGINT", interrupted);
    process.on("SIGTERM", interrupted);
  }
}
