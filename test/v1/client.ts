import type { Tier } from "@odds/local";
import { e2eStack, fetchJson } from "../support/e2e";

export interface V1Response {
  status: number;
  headers: Headers;
  body: any;
}

/** How a test presents its key: the v1 way, the v2 ways (refused by v1), or not at all. */
export type KeyPresentation = "bearer" | "x-api-key" | "query" | "none";

/** The running stack's v1 base URL (beside v2's). */
export function v1BaseUrl(): string {
  return e2eStack().baseUrl.replace(/\/v2\/?$/, "/v1");
}

/** GET a v1 path (or a links.next, which starts with /v1) with a tier's key or a given one. */
export async function getV1(
  path: string,
  options: { tier?: Tier; apiKey?: string; as?: KeyPresentation } = {},
): Promise<V1Response> {
  const key = options.apiKey ?? e2eStack().apiKeys[options.tier ?? "base"];
  const as = options.as ?? "bearer";
  const headers: Record<string, string> = {};
  if (as === "bearer") headers.authorization = `Bearer ${key}`;
  if (as === "x-api-key") headers["x-api-key"] = key;
  const relative = path.startsWith("/v1") ? path.slice(3) : path;
  const url = new URL(`${v1BaseUrl()}${relative}`);
  if (as === "query") url.searchParams.set("apiKey", key);
  return fetchJson(url, headers);
}
