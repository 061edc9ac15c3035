// kubectl and helm for the cluster checks, against the cluster deploy/cluster/test.sh started
// (it exports KUBECONFIG and puts the built kubectl and helm first on PATH).
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export const NAMESPACE = process.env.CLUSTER_NAMESPACE ?? "odds";
export const RELEASE = process.env.CLUSTER_RELEASE ?? "odds";
/** Resource name prefix of the release (`<release>-<chart>`). */
export const FULLNAME = `${RELEASE}-odds-read-api`;
export const SERVICES = ["edge", "events", "history", "catalogue", "usage", "ingest"] as const;
export type Service = (typeof SERVICES)[number];

export function kubectl(...args: string[]): string {
  return execFileSync("kubectl", ["-n", NAMESPACE, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function kubectlJson<T = any>(...args: string[]): T {
  return JSON.parse(kubectl(...args, "-o", "json")) as T;
}

/** kubectl without blocking the event loop (while a load runs in this process). */
export async function kubectlAsync(...args: string[]): Promise<string> {
  return (await execFileAsync("kubectl", ["-n", NAMESPACE, ...args], { encoding: "utf8" })).stdout;
}

export async function helmAsync(...args: string[]): Promise<string> {
  return (await execFileAsync("helm", ["-n", NAMESPACE, ...args], { encoding: "utf8" })).stdout;
}

/** Ready pods of one of the release's services. */
export function pods(service: Service): Array<{ name: string; ready: boolean; images: string[]; deleting: boolean }> {
  const list = kubectlJson<{ items: any[] }>("get", "pods", "-l", `app.kubernetes.io/component=${service}`);
  return list.items.map((pod) => ({
    name: pod.metadata.name,
    deleting: Boolean(pod.metadata.deletionTimestamp),
    ready: (pod.status.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True"),
    images: pod.spec.containers.map((c: any) => c.image),
  }));
}

/** `kubectl port-forward` to a Service on a free local port; resolves once it forwards. */
export function portForward(service: string, port: number): Promise<{ port: number; process: ChildProcess }> {
  const child = spawn("kubectl", ["-n", NAMESPACE, "port-forward", `svc/${service}`, `:${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`port-forward to ${service}:${port} did not start: ${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), process: child });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`port-forward to ${service}:${port} exited (${code}): ${output}`));
    });
  });
}

/** The edge Service's cluster address: reached from this node through kube-proxy, so every edge pod serves. */
export function edgeServiceUrl(): string {
  const svc = kubectlJson("get", "service", `${FULLNAME}-edge`);
  const port = svc.spec.ports.find((p: any) => p.name === "http").port;
  return `http://${svc.spec.clusterIP}:${port}/v2`;
}
