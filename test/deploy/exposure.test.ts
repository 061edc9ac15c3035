// NetworkPolicy works at L4 and write RPCs share each service's gRPC port with its reads, so the
// chart's claim "internal write RPCs are not exposed" rests on who calls them. These checks keep
// that claim true as the code changes: the public path (Envoy → edge) never reaches a write RPC.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@odds/local";

/** Write RPCs of the data services (ingest's) and the key administration RPCs (the admin CLI's). */
const INGEST_WRITES = { events: ["ApplyCycle"], history: ["RecordQuotes"], catalogue: ["ApplyCatalogue"] };
const ADMIN_RPCS = { usage: ["CreateKey", "SetKeyActive", "ListKeys"] };

const rpcsOf = (service: string) =>
  [
    ...readFileSync(join(REPO_ROOT, "proto", "odds", service, "v1", `${service}.proto`), "utf8").matchAll(
      /^\s*rpc (\w+)\(/gm,
    ),
  ].map((m) => m[1]);
const clientMethod = (rpc: string) => rpc[0]!.toLowerCase() + rpc.slice(1);
const sourcesOf = (service: string) => {
  const dir = join(REPO_ROOT, "services", service, "src");
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => readFileSync(join(dir, file), "utf8"))
    .join("\n");
};
const calls = (source: string, rpc: string) => new RegExp(`\\.${clientMethod(rpc)}\\b`).test(source);

test("the write and admin RPCs named here exist in the contracts (the list cannot go stale silently)", () => {
  for (const [service, rpcs] of Object.entries({ ...INGEST_WRITES, ...ADMIN_RPCS })) {
    expect(rpcsOf(service)).toEqual(expect.arrayContaining(rpcs));
  }
});

test("the edge, the only service Envoy forwards to, calls no data write RPC and no key administration RPC", () => {
  const edge = sourcesOf("edge");
  const reached = Object.values({ ...INGEST_WRITES, ...ADMIN_RPCS })
    .flat()
    .filter((rpc) => calls(edge, rpc));
  expect(reached).toEqual([]);
});

test("ingest, the only other pod the NetworkPolicies let in, is the caller of the data write RPCs", () => {
  const ingest = sourcesOf("ingest");
  for (const rpc of Object.values(INGEST_WRITES).flat())
    expect({ rpc, called: calls(ingest, rpc) }).toEqual({ rpc, called: true });
});
