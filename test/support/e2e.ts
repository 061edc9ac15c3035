import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { removeScratchFolder, type StackPorts, type Tier } from "@odds/local";

export interface E2eStack {
  baseUrl: string;
  apiKeys: Record<Tier, string>;
  uris: Record<string, string>;
  ports: StackPorts;
  dataDir: string;
}

/** The running stack started by the e2e global setup. */
export function e2eStack(): E2eStack {
  const file = process.env.E2E_INFO_FILE;
  if (!file) throw new Error("E2E_INFO_FILE is not set: run through `npm test`");
  return JSON.parse(readFileSync(file, "utf8")) as E2eStack;
}

/**
 * For a global teardown: removes the folder of the run's E2E_INFO_FILE (a local stack's stores and logs, or the
 * cluster checks' links to the pods' logs); KEEP_TEST_DATA=1 keeps it for a post-mortem.
 */
export function removeE2eDataDir(): void {
  const file = process.env.E2E_INFO_FILE;
  removeScratchFolder(file && dirname(file));
}

/** GET a v2 path with a tier's key; returns status, headers and parsed JSON body. */
export async function getV2(
  path: string,
  options: {
    tier?: Tier;
    apiKey?: string | null;
    headers?: Record<string, string>;
    /** Another stack than the shared one (a suite that starts its own). */
    stack?: Pick<E2eStack, "baseUrl" | "apiKeys">;
  } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const stack = options.stack ?? e2eStack();
  const key = options.apiKey === undefined ? stack.apiKeys[options.tier ?? "base"] : options.apiKey;
  const headers: Record<string, string> = { ...options.headers };
  if (key !== null) headers["x-api-key"] = key;
  return fetchJson(`${stack.baseUrl}${path}`, headers);
}

/** GET a URL; returns status, headers and the body parsed as JSON (the text when it is not JSON). */
export async function fetchJson(
  url: string | URL,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (docs page); keep the text
  }
  return { status: res.status, headers: res.headers, body };
}
