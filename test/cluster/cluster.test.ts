// What only a real install can show: a rolling update under load loses no request, a killed pod
// of every service is replaced while the API keeps answering (with the contract's errors where a
// single replica is down), and the archiver CronJob moves ticks. Run by deploy/cluster/test.sh
// after the chart is installed; the steps run in order (one file, --runInBand).
import { waitUntil } from "@odds/local";
import autocannon from "autocannon";
import { e2eStack } from "../support/e2e";
import {
  edgeServiceUrl,
  FULLNAME,
  helmAsync,
  kubectl,
  kubectlAsync,
  kubectlJson,
  pods,
  SERVICES,
  type Service,
} from "./kube";

const CHART_DIR = process.env.CLUSTER_CHART_DIR ?? "";
/** A route served by each service behind the edge (ingest serves none: the API must not notice it). */
const ROUTE: Record<Service, string> = {
  edge: "/sports/",
  events: "/events/?limit=5",
  history: "/odds/history/?eventID=none_such_event",
  catalogue: "/teams/?limit=5",
  usage: "/account/usage",
  ingest: "/events/?limit=5",
};
/** The route's answer while its service is healthy: the history of an event that does not exist is the contract's 404. */
const HEALTHY: Record<Service, number> = {
  edge: 200,
  events: 200,
  history: 404,
  catalogue: 200,
  usage: 200,
  ingest: 200,
};
/** Statuses the contract lists for each route besides 200 (Errors table). */
const CONTRACT_ERRORS: Record<Service, number[]> = {
  edge: [],
  events: [500],
  history: [404, 500, 503],
  catalogue: [500],
  usage: [404],
  ingest: [500],
};

function internalKey(): string {
  return e2eStack().apiKeys.internal;
}

async function answer(base: string, path: string): Promise<{ status: number; body: any } | { error: string }> {
  try {
    const res = await fetch(`${base}${path}`, {
      headers: { "x-api-key": internalKey() },
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: await res.json() };
  } catch (err) {
    return { error: String(err) };
  }
}

describe("rolling update under load", () => {
  it("upgrades every Deployment to a changed image with zero failed requests", async () => {
    expect(CHART_DIR).not.toBe("");
    const base = edgeServiceUrl();
    const paths = ["/events/?limit=5", "/sports/", "/teams/?limit=5", "/account/usage", "/odds/history/?eventID=none"];
    const load = autocannon({
      url: base.replace(/\/v2$/, ""),
      connections: 4,
      duration: 600, // bounded; stopped as soon as the rollout is complete
      timeout: 15,
      headers: { "x-api-key": internalKey() },
      requests: paths.map((path) => ({ method: "GET" as const, path: `/v2${path}` })),
    });
    const result = new Promise<autocannon.Result>((resolve) => load.on("done", resolve));
    const statuses = new Map<number, number>();
    // When each server error came (UTC), to read beside the pod logs test.sh keeps (CLUSTER_LOGS).
    const serverErrors: string[] = [];
    load.on("response", (_client, statusCode) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode >= 500) serverErrors.push(`${new Date().toISOString()} ${statusCode}`);
    });
    const errorCodes: string[] = [];
    load.on("reqError", (err: Error & { code?: string }) => errorCodes.push(err.code ?? err.message));
    try {
      await new Promise((r) => setTimeout(r, 3000));
      // Asynchronous: the load runs in this process and must not stall while Helm waits.
      await helmAsync(
        "upgrade",
        process.env.CLUSTER_RELEASE ?? "odds",
        CHART_DIR,
        "--reuse-values",
        "--set-string",
        "defaults.image.tag=2",
        "--wait",
        "--timeout",
        "10m",
      );
      for (const service of SERVICES)
        await kubectlAsync("rollout", "status", `deployment/${FULLNAME}-${service}`, "--timeout=300s");
      await new Promise((r) => setTimeout(r, 3000));
    } finally {
      load.stop();
    }
    const done = await result;
    for (const service of SERVICES) {
      const running = pods(service).filter((pod) => !pod.deleting);
      expect([service, running.every((pod) => pod.images.every((image) => image.endsWith(":2")))]).toEqual([
        service,
        true,
      ]);
    }
    // Failed: no answer at all, or a server error (an unknown event's history is the contract's 404).
    expect(done.requests.total).toBeGreaterThan(50);
    expect({ errors: done.errors, timeouts: done.timeouts, resets: done.resets, errorCodes }).toEqual({
      errorCodes: [],
      errors: 0,
      timeouts: 0,
      resets: 0,
    });
    expect(serverErrors).toEqual([]);
  });
});

describe("a killed pod of each service", () => {
  it.each(SERVICES)(
    "%s: Kubernetes replaces it and the API answers 200 or the contract's errors meanwhile",
    async (service) => {
      const base = edgeServiceUrl();
      const route = ROUTE[service];
      const before = pods(service).filter((pod) => pod.ready && !pod.deleting);
      expect(before.length).toBeGreaterThan(0);
      const victim = before[0].name;
      const replicas = kubectlJson("get", "deployment", `${FULLNAME}-${service}`).spec.replicas as number;
      kubectl("delete", "pod", victim, "--grace-period=0", "--force", "--wait=false");
      const killedAt = Date.now();
      const answers: Array<{ at: number; status?: number; body?: any; error?: string }> = [];
      await waitUntil(
        `a replacement ${service} pod to be ready`,
        async () => {
          answers.push({ at: Date.now() - killedAt, ...(await answer(base, route)) });
          const ready = pods(service).filter((pod) => pod.ready && !pod.deleting && pod.name !== victim);
          if (ready.length !== replicas) throw new Error(`${ready.length} of ${replicas} other pods ready`);
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      );
      // The edge's gRPC channel reconnects to the replacement with backoff: the API recovers within a minute.
      await waitUntil(
        `the API to answer ${route} with ${HEALTHY[service]} again`,
        async () => {
          const a = { at: Date.now() - killedAt, ...(await answer(base, route)) };
          answers.push(a);
          if (!("status" in a && a.status === HEALTHY[service])) throw new Error(`answered ${JSON.stringify(a)}`);
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      for (const a of answers) {
        // Killing one of two edges: kube-proxy drops its endpoint within a couple of seconds; a
        // connection attempted to it before then fails below the API (no answer to judge).
        if (a.error !== undefined && service === "edge" && a.at < 5000) continue;
        expect([route, a.error]).toEqual([route, undefined]);
        if (a.status === 200) continue;
        expect([route, CONTRACT_ERRORS[service].includes(a.status ?? 0)]).toEqual([route, true]);
        expect(a.body).toMatchObject({ success: false, error: expect.any(String) });
      }
    },
  );
});

describe("the archiver CronJob", () => {
  it("runs once as a Job and moves ticks older than the live retention to the archive tier", async () => {
    const job = `archiver-check-${Date.now()}`;
    kubectl("create", "job", job, `--from=cronjob/${FULLNAME}-archiver`);
    // A failed Job ends the wait at once, with its logs: the probe aborts the wait's signal.
    const failed = new AbortController();
    await waitUntil(
      `job ${job} to finish`,
      async () => {
        const status = kubectlJson("get", "job", job).status ?? {};
        if ((status.failed ?? 0) > 0) failed.abort(new Error(`job ${job} failed:\n${kubectl("logs", `job/${job}`)}`));
        if (!((status.succeeded ?? 0) > 0)) throw new Error(`not finished: ${JSON.stringify(status)}`);
      },
      { timeoutMs: 600_000, intervalMs: 500, signal: failed.signal },
    );
    const logs = kubectl("logs", `job/${job}`);
    const complete = logs
      .split("\n")
      .filter((line) => line.includes("archiver pass complete"))
      .map((line) => JSON.parse(line) as { moved: number });
    expect(complete).toHaveLength(1);
    expect(complete[0].moved).toBeGreaterThan(0);
  });
});
