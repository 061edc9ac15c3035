// Jest global setup of the cluster checks: port-forwards to the release's edge and usage Services
// and to the in-cluster FerretDB, API keys of every tier created through usage, and the same
// E2E_INFO_FILE the e2e suite reads, so its contract checks run unchanged against the cluster.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchFolder } from "@odds/local";
import { createKey } from "../edge/keys";
import { FULLNAME, NAMESPACE, portForward, RELEASE } from "./kube";

/** Where kubelet writes container logs on this node (one folder per pod, one per container). */
const POD_LOGS = "/var/log/pods";

export default async function setup(): Promise<void> {
  const dataDir = scratchFolder("odds-cluster-e2e-");
  const forwards: ChildProcess[] = [];
  (globalThis as { __ODDS_FORWARDS__?: ChildProcess[] }).__ODDS_FORWARDS__ = forwards;
  const forward = async (service: string, port: number) => {
    const f = await portForward(service, port);
    forwards.push(f.process);
    return f.port;
  };
  const edge = await forward(`${FULLNAME}-edge`, 8080);
  const usage = await forward(`${FULLNAME}-usage`, 50054);
  const mongodb = await forward(`${RELEASE}-mongodb`, 27017);
  const info = {
    baseUrl: `http://127.0.0.1:${edge}/v2`,
    apiKeys: {} as Record<string, string>,
    uris: {
      events: `mongodb://127.0.0.1:${mongodb}/events`,
      history: `mongodb://127.0.0.1:${mongodb}/history`,
      catalogue: `mongodb://127.0.0.1:${mongodb}/catalogue`,
      usage: `mongodb://127.0.0.1:${mongodb}/usage`,
    },
    ports: { edge, usage },
    dataDir,
  };
  const file = join(dataDir, "e2e.json");
  writeFileSync(file, JSON.stringify(info));
  process.env.E2E_INFO_FILE = file;
  // The keys a local stack seeds (the contract checks expect their e-mail addresses).
  for (const tier of ["lite", "base", "internal"] as const)
    info.apiKeys[tier] = (await createKey(tier, { email: `dev-${tier}@localhost` })).apiKey;
  writeFileSync(file, JSON.stringify(info));
  linkPodLogs(join(dataDir, "logs"));
}

/** <dataDir>/logs as the e2e checks read it: links to the release's container logs on this node. */
function linkPodLogs(logsDir: string): void {
  mkdirSync(logsDir);
  if (!existsSync(POD_LOGS)) throw new Error(`${POD_LOGS} is missing: kubelet writes container logs there`);
  // The chart's `helm test` pod is no service of the stack: it is deleted once it succeeds (its hook-delete-policy),
  // and kubelet removes its log with it, at any moment, so a link to it could dangle while the checks read the logs.
  const isService = (dir: string) =>
    dir.startsWith(`${NAMESPACE}_`) && !dir.startsWith(`${NAMESPACE}_${FULLNAME}-test-`);
  for (const pod of readdirSync(POD_LOGS).filter(isService)) {
    for (const container of readdirSync(join(POD_LOGS, pod))) {
      for (const log of readdirSync(join(POD_LOGS, pod, container)))
        symlinkSync(join(POD_LOGS, pod, container, log), join(logsDir, `${pod}_${container}_${log}`));
    }
  }
}
