/**
 * Runs writes one at a time in arrival order: each starts after the previous one settled, so it
 * sees the state the previous one left. A failed write fails only its own caller. (CallTurns runs
 * the starts of gRPC calls through one the same way.)
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Settles when every write queued so far has settled. */
  async drained(): Promise<void> {
    await this.tail;
  }
}
