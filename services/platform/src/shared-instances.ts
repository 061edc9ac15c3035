/**
 * One instance per key of values that many records repeat (oddIDs, bookmaker lists): records hold the
 * pooled instance instead of the fresh copy each decode brings. Bounded: past `max` keys the pool
 * starts over (records keep the instances they hold; only the sharing of later ones restarts).
 */
export class SharedInstances<T> {
  private readonly held = new Map<string, T>();

  constructor(private readonly max: number) {}

  /** The pooled instance for `key`, made (and pooled) by `make` the first time. */
  of(key: string, make: () => T): T {
    const held = this.held.get(key);
    if (held !== undefined) return held;
    if (this.held.size >= this.max) this.held.clear();
    const made = make();
    this.held.set(key, made);
    return made;
  }
}
