import type { V1Page } from "./route";

/** The v1 links of a page: the request itself and the next page (its cursor bound to this query), or null. */
export interface V1Links {
  self: string;
  next: string | null;
}

/**
 * Links built from the path and the request's query string (as it names the request: `ParsedQuery.sorted`), the next
 * page's with `cursor` replaced, so it keeps every filter.
 */
export function linksOf(path: string, query: string, nextCursor: string | null): V1Links {
  let next: string | null = null;
  if (nextCursor !== null) {
    const following = new URLSearchParams(query);
    following.set("cursor", nextCursor);
    next = `${path}?${following.toString()}`;
  }
  return { self: query ? `${path}?${query}` : path, next };
}

/**
 * What `{data, meta, links}` writes before a page's items and after them. Items are v1 objects the services already
 * rendered as JSON: they are spliced in as bytes. `meta.cost.objects` is what the response is charged against the key.
 */
export function v1Envelope(page: V1Page, links: V1Links, data: "list" | "object"): [head: Buffer, tail: Buffer] {
  const meta = { count: page.items.length, cost: { objects: page.objects } };
  return [
    data === "list" ? V1_LIST_OPEN : V1_OBJECT_OPEN,
    Buffer.from(`${data === "list" ? "]" : ""},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`),
  ];
}

const V1_LIST_OPEN = Buffer.from('{"data":[');
const V1_OBJECT_OPEN = Buffer.from('{"data":');
