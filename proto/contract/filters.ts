// The contract's filter semantics, shared by every service that filters lists.

/** Boolean filters: true = only matching, false = only non-matching, omitted = all. */
export function matchesFlag(wanted: boolean | undefined, actual: boolean): boolean {
  return wanted === undefined || wanted === actual;
}

/** One-or-comma-separated filters: an empty list matches everything. */
export function matchesList(wanted: readonly string[], actual: string): boolean {
  return wanted.length === 0 || wanted.includes(actual);
}
