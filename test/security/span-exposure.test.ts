// API keys never reach a trace: an edge and a usage service (the two that see a key or its hash)
// export their spans over OTLP/HTTP (JSON) to a receiver here while keys are used every way a
// client can; every exported byte (span names, attributes, events, resources) is searched.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { freePort, grpcServing, waitUntil, type ManagedProcess } from "@odds/local";
import { e2eStack, fetchJson } from "../support/e2e";
import { EDGE_START_MS, startEdgeBeside } from "../support/edge-process";
import { nodeService, SERVICE_START_MS } from "../faults/data-services";

const bodies: string[] = [];
let receiver: Server;
let usage: ManagedProcess | undefined;
let edge: ManagedProcess | undefined;

/** The services whose spans arrived so far (resource attribute service.name). */
function servicesSeen(): Set<string> {
  const names = new Set<string>();
  for (const body of bodies) {
    for (const match of body.matchAll(/"key":"service\.name","value":\{"stringValue":"([^"]+)"/g)) names.add(match[1]!);
  }
  return names;
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await Promise.all([edge?.stop(5_000), usage?.stop(5_000)]);
  await new Promise((resolve) => receiver.close(resolve));
});

it(
  "no key, nor its full hash, appears in any exported span of the edge or the usage service",
  async () => {
    const stack = e2eStack();
    const address = receiver.address();
    const otel = (service: string) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: service,
      OTEL_BSP_SCHEDULE_DELAY: "200",
    });
    const usagePort = await freePort();
    const usageProc = nodeService(
      stack.dataDir,
      `usage-traced-${usagePort}`,
      "usage/dist/main.js",
      { GRPC_PORT: String(usagePort), USAGE_MONGODB_URI: stack.uris.usage ?? "", ...otel("usage-traced") },
      true,
    );
    usage = usageProc;
    await waitUntil("traced usage service", () => grpcServing(usagePort), {
      timeoutMs: SERVICE_START_MS,
      intervalMs: 250,
      process: usageProc,
    });
    const started = await startEdgeBeside({
      USAGE_SERVICE_ADDR: `127.0.0.1:${usagePort}`,
      PLAN_CACHE_TTL_MS: "1",
      ...otel("edge-traced"),
    });
    edge = started.proc;

    const unknown = `odds_base_${"e".repeat(32)}_span_probe`;
    const keys = [stack.apiKeys.base, stack.apiKeys.lite, unknown];
    const paths = [
      "/events/?limit=1",
      "/sports/",
      "/account/usage",
      "/events/?limit=abc",
      "/teams/?cursor=forged",
      "/nope",
    ];
    for (const apiKey of keys) {
      for (const path of paths) {
        await fetchJson(`${started.baseUrl}${path}`, { "x-api-key": apiKey });
        await fetchJson(`${started.baseUrl}${path}${path.includes("?") ? "&" : "?"}apiKey=${apiKey}`, {});
        await fetchJson(`${started.baseUrl}${path}`, { authorization: `Bearer ${apiKey}` });
      }
    }
    // Batches leave every 200 ms: wait for the spans of both services up to the last request's.
    await fetchJson(`${started.baseUrl}/sports/?span_probe_end=1`, { "x-api-key": stack.apiKeys.base });
    await waitUntil(
      "spans of the edge and the usage service",
      async () => {
        const seen = servicesSeen();
        if (!seen.has("edge-traced") || !seen.has("usage-traced")) throw new Error(`seen ${[...seen].join(",")}`);
        if (!bodies.some((body) => body.includes("span_probe_end"))) throw new Error("last request not exported yet");
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const exported = bodies.join("\n");
    expect(exported).toContain("/account/usage");
    for (const key of keys) {
      const hash = createHash("sha256").update(key, "utf8").digest();
      for (const secret of [key, hash.toString("hex"), hash.toString("base64"), hash.toString("base64url")]) {
        expect([secret.slice(0, 12), exported.includes(secret)]).toEqual([secret.slice(0, 12), false]);
      }
    }
  },
  SERVICE_START_MS + EDGE_START_MS + 120_000,
);
