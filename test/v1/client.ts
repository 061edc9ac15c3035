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

/**
 * A call whose key's plan may refuse it for a moment. The pro plan allows 5,000 entities a second, which a dense
 * event's history pages can pass within one second, and suites running side by side share each tier's key. A 429
 * is then the limit doing its job: this waits for its Retry-After and asks again, as a client is told to, a few
 * times at most. Any other answer is returned as it is.
 */
export async function untilAdmitted<T extends { status: number; headers: Headers }>(
  call: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await call();
    if (res.status !== 429 || attempt === 5) return res;
    const seconds = Number(res.headers.get("retry-after"));
    if (!(seconds > 0)) throw new Error(`a 429 without a Retry-After: ${res.headers.get("retry-after")}`);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  }
}
