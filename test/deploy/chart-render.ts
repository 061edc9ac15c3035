// Offline rendering of the Helm chart for the deploy tests: Helm and the Envoy validator
// are built into .tools/bin by deploy/local/prepare-test-tools.sh; nothing here needs a cluster.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, removeScratchFolder, scratchFolder } from "@odds/local";
import { parse, parseAllDocuments } from "yaml";

export const CHART_DIR = join(REPO_ROOT, "charts", "odds-read-api");
export const VALUES_FILES = ["values.yaml", "values-dev.yaml", "values-staging.yaml", "values-prod.yaml"] as const;
export type ValuesFile = (typeof VALUES_FILES)[number];
export const SERVICES = ["edge", "events", "history", "catalogue", "usage", "ingest"] as const;
/** Rendered against this Kubernetes version (the chart's kubeVersion floor is 1.27). */
export const KUBE_VERSION = "1.30.0";
export const RELEASE = "odds-read-api";
export const NAMESPACE = "odds";

export function tool(name: "helm" | "envoy-validate" | "kube-strict"): string {
  const path = join(REPO_ROOT, ".tools", "bin", name);
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: run bash deploy/local/prepare-test-tools.sh (builds it from the Go module proxy)`,
    );
  return path;
}

export function run(command: string, args: string[]): { status: number; output: string } {
  try {
    const output = execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { status: 0, output };
  } catch (err) {
    const failure = err as { status?: number; stdout?: string; stderr?: string };
    return { status: failure.status ?? 1, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

/**
 * A copy of the chart Helm can load offline: symlinks resolved, and each optional dependency
 * (bitnami mongodb/redis, fetched by `helm dependency update` on a connected machine) replaced
 * by an empty stub of the declared name, so lint and template check our own templates.
 */
export function stageChart(): { dir: string; cleanup(): void } {
  const root = scratchFolder("odds-chart-");
  const dir = join(root, "odds-read-api");
  cpSync(CHART_DIR, dir, { recursive: true, dereference: true });
  const chart = parse(readFileSync(join(dir, "Chart.yaml"), "utf8")) as {
    dependencies?: { name: string; version: string }[];
  };
  for (const dep of chart.dependencies ?? []) {
    const stub = join(dir, "charts", dep.name);
    mkdirSync(stub, { recursive: true });
    const version = dep.version.replace(/x/g, "0").replace(/[^0-9.]/g, "");
    writeFileSync(join(stub, "Chart.yaml"), `apiVersion: v2\nname: ${dep.name}\nversion: ${version}\n`);
  }
  return { dir, cleanup: () => removeScratchFolder(root) };
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

/** `helm template` output as Helm prints it (multi-document YAML). */
export function helmTemplateText(chartDir: string, valuesFile: ValuesFile, extraArgs: string[] = []): string {
  const args = ["template", RELEASE, chartDir, "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION];
  args.push("-f", join(chartDir, valuesFile), ...extraArgs);
  const result = run(tool("helm"), args);
  if (result.status !== 0) throw new Error(`helm template -f ${valuesFile} failed:\n${result.output}`);
  return result.output;
}

export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      const [error] = doc.errors;
      if (error) throw new Error(`rendered YAML does not parse: ${error.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((obj): obj is K8sObject => obj !== null);
}

export function helmTemplate(chartDir: string, valuesFile: ValuesFile, extraArgs: string[] = []): K8sObject[] {
  return parseManifests(helmTemplateText(chartDir, valuesFile, extraArgs));
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} rendered`);
  return found;
}

export const nameOf = (component: string) => `${RELEASE}-${component}`;

/** Every pod template with the name of the object that owns it. */
export function podSpecs(objects: K8sObject[]): { owner: string; spec: any }[] {
  return objects.flatMap((o) => {
    if (o.kind === "Deployment") return [{ owner: `Deployment/${o.metadata.name}`, spec: o.spec.template.spec }];
    if (o.kind === "CronJob")
      return [{ owner: `CronJob/${o.metadata.name}`, spec: o.spec.jobTemplate.spec.template.spec }];
    if (o.kind === "Pod") return [{ owner: `Pod/${o.metadata.name}`, spec: o.spec }];
    return [];
  });
}

export function envoyConfig(objects: K8sObject[]): any {
  return parse(find(objects, "ConfigMap", nameOf("envoy")).data["envoy.yaml"]);
}
