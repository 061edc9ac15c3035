/** Counts by reason of what one fetch left out or could not match; reported on the snapshot. */
export class Tally {
  private readonly counts: Record<string, number> = {};

  add(reason: string, count = 1): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + count;
  }

  toRecord(): Record<string, number> {
    return { ...this.counts };
  }
}
