import { invalidParams } from "./errors";

/** Names the query parser would keep verbatim but no route declares: `leagueID[$ne]`, `limit[]`, `a.b`. */
const STRUCTURED_NAME = /[[\]$.{}]/;
/** C0 controls, DEL, and U+FFFD (what invalid UTF-8 percent-escapes decode to). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNREADABLE = /[\u0000-\u001f\u007f\ufffd]/;

/**
 * Refuses parameters that look like a filter but would be dropped as unknown, and values no
 * identifier or date can hold, so a typo'd or injected filter never returns unfiltered data.
 * Plain unknown names stay ignored, as the contract's routes have always done.
 */
export function refuseUnreadableParameters(query: Record<string, string | string[] | undefined>): void {
  for (const [name, value] of Object.entries(query)) {
    const shown = name.replace(UNREADABLE, "?").slice(0, 64);
    if (STRUCTURED_NAME.test(name) || UNREADABLE.test(name)) {
      throw invalidParams(`${shown}: bracketed, array and operator parameters are not supported; send name=value`);
    }
    const values = Array.isArray(value) ? value : [value ?? ""];
    if (values.some((item) => UNREADABLE.test(item))) {
      throw invalidParams(`${shown}: contains control characters or invalid UTF-8`);
    }
  }
}
