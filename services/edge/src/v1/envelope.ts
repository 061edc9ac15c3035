import type { V1Page } from "./route";

/** The v1 links of a page: the request itself and the next page (its cursor bound to this query), or null. */
export interface V1Links {
  self: string;
  next: string | null;
}

/** Links built from the path and the raw query with `cursor` replaced, so the next page keeps every filter. */
export function linksOf(path: string, query: URLSearchParams, nextCursor: string | null): V1Links {
  const self = query.toString();
  let next: string | null = null;
  if (nextCursor !== null) {
    const following = new URLSearchParams(query);
    following.set("cursor", nextCursor);
    next = `${path}?${following.toString()}`;
  }
  return { self: self ? `${path}?${self}` : path, next };
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
