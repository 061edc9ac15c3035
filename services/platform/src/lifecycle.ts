import type { Logger } from "pino";

type Closer = { name: string; close: () => Promise<void> | void };

/**
 * Graceful shutdown: on SIGTERM or SIGINT, runs the registered closers in order
 * (servers first, stores last) and exits 0; exits 1 if they do not finish in time.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  onShutdown(name: string, close: Closer["close"]): void {
    this.closers.push({ name, close });
  }

  listen(): void {
    const stop = (signal: NodeJS.Signals) => void this.shutdown(signal);
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  }

  async shutdown(reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.logger.info({ reason }, "shutting down");
    const deadline = setTimeout(() => {
      this.logger.error("shutdown timed out");
      process.exit(1);
    }, this.timeoutMs);
    deadline.unref();
    for (const closer of this.closers) {
      try {
        await closer.close();
      } catch (err) {
        this.logger.error({ err, closer: closer.name }, "error while closing");
      }
    }
    clearTimeout(deadline);
    this.logger.info("stopped");
    process.exit(0);
  }
}
