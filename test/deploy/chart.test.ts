import { readFileSync, writeFileSync } from "node:fs";
import * as coreV1 from "kubernetes-models/v1";
import * as appsV1 from "kubernetes-models/apps/v1";
import * as autoscalingV2 from "kubernetes-models/autoscaling/v2";
import * as batchV1 from "kubernetes-models/batch/v1";
import * as networkingV1 from "kubernetes-models/networking.k8s.io/v1";
import * as policyV1 from "kubernetes-models/policy/v1";
import { join } from "node:path";
import { parse } from "yaml";
import { nodeFlagsFor, REPO_ROOT, SERVICE_MALLOC_ENV, SERVICE_NODE_FLAGS, serviceMallocEnv } from "@odds/local";
import {
  CHART_DIR,
  SERVICES,
  VALUES_FILES,
  find,
  helmTemplate,
  helmTemplateText,
  nameOf,
  parseManifests,
  podSpecs,
  run,
  stageChart,
  tool,
  type K8sObject,
  type ValuesFile,
} from "./chart-render";

// Kubernetes JSON schemas (1.27) compiled into per-kind models.
type Model = new (data: unknown) => { validate(): void };
const models: Record<string, Record<string, unknown>> = {
  v1: coreV1,
  "apps/v1": appsV1,
  "batch/v1": batchV1,
  "policy/v1": policyV1,
  "autoscaling/v2": autoscalingV2,
  "networking.k8s.io/v1": networkingV1,
};

const INTERNAL = ["events", "history", "catalogue", "usage", "ingest"] as const;
const STORE_VARS = [
  "EVENTS_MONGODB_URI",
  "HISTORY_LIVE_MONGODB_URI",
  "HISTORY_ARCHIVE_MONGODB_URI",
  "CATALOGUE_MONGODB_URI",
  "USAGE_MONGODB_URI",
  "INGEST_MONGODB_URI",
  "REDIS_URL",
];

let staged: ReturnType<typeof stageChart>;
const renderedText = {} as Record<ValuesFile, string>;
const rendered = {} as Record<ValuesFile, K8sObject[]>;

beforeAll(() => {
  staged = stageChart();
  for (const file of VALUES_FILES) {
    renderedText[file] = helmTemplateText(staged.dir, file);
    rendered[file] = parseManifests(renderedText[file]);
  }
});
afterAll(() => staged?.cleanup());

const container = (objects: K8sObject[], component: string) =>
  find(objects, "Deployment", nameOf(component)).spec.template.spec.containers[0];
/** A Kubernetes memory quantity in MiB (binary and decimal suffixes; plain bytes). */
function mebibytes(quantity: string | number): number {
  const units: Record<string, number> = { "": 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 };
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity));
  if (!match) throw new Error(`not a memory quantity this test reads: ${quantity}`);
  return (Number(match[1]) * units[match[2] ?? ""]!) / 2 ** 20;
}
const envOf = (c: any): Record<string, any> => Object.fromEntries(c.env.map((e: any) => [e.name, e]));
const selects = (policy: K8sObject, component: string) =>
  policy.spec.podSelector.matchLabels["app.kubernetes.io/component"] === component;

describe.each(VALUES_FILES)("chart rendered with %s", (file) => {
  const objects = () => rendered[file];

  test("passes helm lint --strict", () => {
    const result = run(tool("helm"), [
      "lint",
      "--strict",
      "--kube-version",
      "1.30.0",
      staged.dir,
      "-f",
      join(staged.dir, file),
    ]);
    expect(result.output).toContain("0 chart(s) failed");
    expect(result.status).toBe(0);
  });

  test("every object validates against its Kubernetes JSON schema", () => {
    expect(objects().length).toBeGreaterThan(30);
    for (const obj of objects()) {
      const group = models[obj.apiVersion];
      if (!group) throw new Error(`no schema for ${obj.apiVersion} (${obj.kind} ${obj.metadata.name})`);
      const KindModel = group[obj.kind] as Model | undefined;
      if (!KindModel) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
      expect(() => new KindModel(obj).validate()).not.toThrow();
    }
  });

  test("every object decodes strictly into the Kubernetes API types (no unknown, misspelt or mistyped field)", () => {
    const manifest = join(staged.dir, `rendered-${file}`);
    writeFileSync(manifest, renderedText[file]);
    const result = run(tool("kube-strict"), [manifest]);
    expect(result.output).toContain(`${objects().length} objects decode strictly`);
    expect(result.status).toBe(0);
  });

  test("every service has a Deployment, Service, ServiceAccount and NetworkPolicy", () => {
    for (const component of [...SERVICES, "envoy"]) {
      for (const kind of ["Deployment", "Service", "ServiceAccount", "NetworkPolicy"]) {
        expect(() => find(objects(), kind, nameOf(component))).not.toThrow();
      }
    }
  });

  test("pods run as non-root with a read-only root filesystem, no privilege escalation, no capabilities and RuntimeDefault seccomp", () => {
    const pods = podSpecs(objects());
    expect(pods).toHaveLength(9); // six services, Envoy, the archiver, the `helm test` pod
    for (const { owner, spec } of pods) {
      expect({ owner, runAsNonRoot: spec.securityContext.runAsNonRoot }).toEqual({ owner, runAsNonRoot: true });
      expect(spec.securityContext.seccompProfile.type).toBe("RuntimeDefault");
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const sc = c.securityContext;
        expect({ owner, sc }).toEqual({
          owner,
          sc: expect.objectContaining({
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          }),
        });
        expect(sc.runAsUser).toBeGreaterThan(0);
        expect(c.resources.requests).toEqual(
          expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }),
        );
        expect(c.resources.limits.memory).toBeDefined();
        // The writable scratch space a read-only root filesystem still needs.
        expect(c.volumeMounts).toEqual(expect.arrayContaining([expect.objectContaining({ mountPath: "/tmp" })]));
      }
    }
  });

  test("services pause before SIGTERM and the grace period covers the pause plus the 10 s graceful shutdown", () => {
    for (const component of SERVICES) {
      const deployment = find(objects(), "Deployment", nameOf(component));
      const [command, seconds] = deployment.spec.template.spec.containers[0].lifecycle.preStop.exec.command;
      expect(command).toBe("sleep");
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(Number(seconds) + 10);
    }
  });

  test("read services roll with a surge pod and none unavailable; ingest, the one writer, never runs twice", () => {
    for (const component of SERVICES) {
      const { rollingUpdate } = find(objects(), "Deployment", nameOf(component)).spec.strategy;
      expect([component, rollingUpdate]).toEqual([
        component,
        component === "ingest" ? { maxSurge: 0, maxUnavailable: 1 } : { maxSurge: 1, maxUnavailable: 0 },
      ]);
    }
  });

  test("service accounts never automount an API token", () => {
    const accounts = objects().filter((o) => o.kind === "ServiceAccount");
    expect(accounts.length).toBeGreaterThanOrEqual(8);
    for (const sa of accounts) expect(sa.automountServiceAccountToken).toBe(false);
  });

  test("internal services use native gRPC health probes on their gRPC port; the edge probes GET /v2/health", () => {
    for (const component of INTERNAL) {
      const c = container(objects(), component);
      const grpcPort = c.ports.find((p: any) => p.name === "grpc").containerPort;
      expect(Number(envOf(c).GRPC_PORT.value)).toBe(grpcPort);
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        expect(c[probe].grpc).toEqual({ port: grpcPort });
      }
    }
    const edge = container(objects(), "edge");
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      expect(edge[probe].httpGet).toEqual({ path: "/v2/health", port: "http" });
    }
    const envoy = container(objects(), "envoy");
    expect(envoy.readinessProbe.httpGet).toEqual({ path: "/ready", port: "ops" });
  });

  test("services run the built entry point with the tracing preload, the archiver runs archiver.js from the history image", () => {
    for (const component of SERVICES) {
      expect(container(objects(), component).command).toEqual([
        "node",
        // The Node flags the local launcher gives the service: the edge's, without V8's memory reducer; history's,
        // with a young generation twice V8's own.
        ...nodeFlagsFor(component),
        "--require",
        "@odds/platform/tracing/register",
        `services/${component}/dist/main.js`,
      ]);
    }
    expect(SERVICE_NODE_FLAGS.edge).toEqual(["--no-memory-reducer"]);
    expect(SERVICE_NODE_FLAGS.history).toEqual(["--max-semi-space-size=32"]);
    const cron = find(objects(), "CronJob", nameOf("archiver"));
    const archiver = cron.spec.jobTemplate.spec.template.spec.containers[0];
    expect(archiver.command.at(-1)).toBe("services/history/dist/archiver.js");
    expect(archiver.image).toBe(container(objects(), "history").image);
    expect(cron.spec.concurrencyPolicy).toBe("Forbid");
    expect(envOf(archiver).METRICS_PORT.value).toBe("0");
    expect(Object.keys(envOf(archiver))).toEqual(
      expect.arrayContaining(["HISTORY_LIVE_MONGODB_URI", "HISTORY_ARCHIVE_MONGODB_URI"]),
    );
    // The Deployment leaves archiving to the CronJob.
    expect(envOf(container(objects(), "history")).ARCHIVE_INTERVAL_MS.value).toBe("0");
    // The service and the archiver must agree on where ticks live; the chart targets MongoDB proper.
    expect(envOf(container(objects(), "history")).HISTORY_TICK_LAYOUT.value).toBe("shared");
    expect(envOf(archiver).HISTORY_TICK_LAYOUT.value).toBe("shared");
  });

  test("each service runs with the malloc environment the local launcher gives it: the image's, and the events service's own thresholds", () => {
    for (const component of SERVICES) {
      const env = envOf(container(objects(), component));
      // What the container sets, or else what the image sets (deploy/docker/Dockerfile: SERVICE_MALLOC_ENV, held equal
      // in test/deploy/build.test.ts).
      const effective = (name: string) => env[name]?.value ?? SERVICE_MALLOC_ENV[name];
      for (const [name, value] of Object.entries(serviceMallocEnv(component))) expect(effective(name)).toBe(value);
    }
  });

  test("each service gets the variables it reads, with downstream addresses that match the rendered Services", () => {
    const serviceAddr = (component: string) => {
      const svc = find(objects(), "Service", nameOf(component));
      return `${svc.metadata.name}:${svc.spec.ports.find((p: any) => p.name === "grpc").port}`;
    };
    const edge = envOf(container(objects(), "edge"));
    for (const dep of ["events", "history", "catalogue", "usage"]) {
      expect(edge[`${dep.toUpperCase()}_SERVICE_ADDR`].value).toBe(serviceAddr(dep));
    }
    expect(Object.keys(edge)).toEqual(
      expect.arrayContaining([
        "HTTP_PORT",
        "REDIS_URL",
        "RATE_LIMIT_FAIL_MODE",
        "V2_RETIRED",
        "METRICS_PORT",
        "LOG_LEVEL",
        "CURSOR_SECRET",
        "DOWNSTREAM_DEADLINE_MS",
        "RATE_LIMIT_TIMEOUT_MS",
        "RATE_LIMIT_ENTITY_FLUSH_MS",
        "PLAN_CACHE_TTL_MS",
        "KEY_RESOLVE_TIMEOUT_MS",
        "KEY_STALE_GRANT_MS",
        "STORE_BREAK_AFTER_FAILURES",
        "STORE_PROBE_AFTER_MS",
        "ANSWER_CACHE_MAX_BYTES",
        "ANSWER_CACHE_MAX_AGE_MS",
        "ANSWER_CACHE_REFRESH_AHEAD_MS",
      ]),
    );
    // The edge's settings as its config reads them: integers, the cache bound not in scientific notation.
    expect(edge.ANSWER_CACHE_MAX_BYTES.value).toBe("67108864");
    expect(edge.KEY_STALE_GRANT_MS.value).toBe("900000");
    expect(edge.CURSOR_SECRET.value).toBeUndefined();
    expect(edge.CURSOR_SECRET.valueFrom.secretKeyRef).toEqual({ name: `${nameOf("edge")}`, key: "cursor-secret" });
    const ingest = envOf(container(objects(), "ingest"));
    for (const dep of ["events", "history", "catalogue"]) {
      expect(ingest[`${dep.toUpperCase()}_SERVICE_ADDR`].value).toBe(serviceAddr(dep));
    }
    expect(ingest.USAGE_SERVICE_ADDR).toBeUndefined();
    // The plan spend of real sources is kept in ingest's own database (restarts never overspend).
    expect(ingest.INGEST_MONGODB_URI.valueFrom.secretKeyRef.key).toBe("ingest-mongodb-uri");
    expect(envOf(container(objects(), "events")).EVENTS_MONGODB_URI).toBeDefined();
    expect(envOf(container(objects(), "catalogue")).CATALOGUE_MONGODB_URI).toBeDefined();
    const usageEnv = envOf(container(objects(), "usage"));
    expect(usageEnv.PLANS_FILE.value).toBe("/etc/odds/plans/plans.yaml");
    // The usage service writes a changed key's revision into the edges' Redis: the same Secret key.
    expect(usageEnv.REDIS_URL.valueFrom.secretKeyRef).toEqual(edge.REDIS_URL.valueFrom.secretKeyRef);
    for (const component of SERVICES) {
      const env = envOf(container(objects(), component));
      expect(env.METRICS_PORT.value).toBe("9464");
      expect(env.OTEL_SERVICE_NAME.value).toBe(component);
    }
  });

  test("store URIs reach containers only through secretKeyRef, never as literal values", () => {
    for (const { owner, spec } of podSpecs(objects())) {
      for (const c of spec.containers) {
        for (const e of c.env ?? []) {
          if (!STORE_VARS.includes(e.name)) continue;
          expect({ owner, name: e.name, value: e.value }).toEqual({ owner, name: e.name, value: undefined });
          expect(e.valueFrom.secretKeyRef.name).toBeTruthy();
        }
      }
    }
  });

  test("no ConfigMap holds a store URI, credential or any value of a Secret", () => {
    const secretValues = objects()
      .filter((o) => o.kind === "Secret")
      .flatMap((s) => Object.values<string>(s.stringData ?? {}));
    for (const cm of objects().filter((o) => o.kind === "ConfigMap")) {
      const text = Object.values<string>(cm.data ?? {}).join("\n");
      expect(text).not.toMatch(/mongodb(\+srv)?:\/\/|rediss?:\/\/|password|secret_key|BEGIN [A-Z ]*PRIVATE KEY/i);
      for (const value of secretValues) expect(text).not.toContain(value);
    }
  });

  test("PodDisruptionBudget for every service; HorizontalPodAutoscaler for every read-path service unless disabled", () => {
    const values = parse(readFileSync(join(CHART_DIR, file), "utf8")) ?? {};
    const pdbsOn = values.defaults?.pdb?.create !== false;
    const hpasOn = values.defaults?.autoscaling?.enabled !== false;
    for (const component of [...SERVICES, "envoy"]) {
      const pdb = objects().find((o) => o.kind === "PodDisruptionBudget" && o.metadata.name === nameOf(component));
      if (pdbsOn) expect(pdb?.spec.selector.matchLabels["app.kubernetes.io/component"]).toBe(component);
    }
    for (const component of ["edge", "events", "history", "catalogue", "usage", "envoy"]) {
      const hpa = objects().find((o) => o.kind === "HorizontalPodAutoscaler" && o.metadata.name === nameOf(component));
      const deployment = find(objects(), "Deployment", nameOf(component));
      if (hpasOn) {
        expect(hpa?.spec.scaleTargetRef).toEqual({
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: nameOf(component),
        });
        expect(hpa?.spec.minReplicas).toBeGreaterThanOrEqual(2);
        expect(deployment.spec.replicas).toBeUndefined(); // the HPA owns the replica count
      } else {
        expect(deployment.spec.replicas).toBeGreaterThanOrEqual(1);
      }
    }
    // The single writer: one replica, never autoscaled.
    expect(
      objects().find((o) => o.kind === "HorizontalPodAutoscaler" && o.metadata.name === nameOf("ingest")),
    ).toBeUndefined();
    expect(find(objects(), "Deployment", nameOf("ingest")).spec.replicas).toBe(1);
  });

  test("NetworkPolicies: only Envoy reaches the edge, only the edge and ingest reach internal services", () => {
    const policies = objects().filter((o) => o.kind === "NetworkPolicy");
    const policy = (component: string) => policies.find((p) => selects(p, component))!;
    const callersOn = (component: string, port: number) =>
      policy(component)
        .spec.ingress.filter((rule: any) => rule.ports.some((p: any) => p.port === port))
        .flatMap((rule: any) =>
          rule.from.map((peer: any) => peer.podSelector?.matchLabels["app.kubernetes.io/component"]),
        )
        .sort();
    const grpcPort = (component: string) =>
      container(objects(), component).ports.find((p: any) => p.name === "grpc").containerPort;

    expect(callersOn("edge", 8080)).toEqual(["envoy"]);
    for (const component of ["events", "history", "catalogue"]) {
      expect(callersOn(component, grpcPort(component))).toEqual(["edge", "ingest"]);
    }
    expect(callersOn("usage", grpcPort("usage"))).toEqual(["edge"]);
    expect(callersOn("ingest", grpcPort("ingest"))).toEqual([]);
    expect(policy("archiver").spec.ingress).toEqual([]);
    for (const p of policies) expect(p.spec.policyTypes).toContain("Ingress");
  });

  test("no NetworkPolicy rule is open to every source except Envoy's public listener", () => {
    for (const p of objects().filter((o) => o.kind === "NetworkPolicy")) {
      for (const rule of p.spec.ingress) {
        if (selects(p, "envoy") && rule.ports.some((port: any) => port.port === 8443)) continue;
        expect({ policy: p.metadata.name, from: rule.from ?? [] }).toEqual({
          policy: p.metadata.name,
          from: expect.arrayContaining([expect.anything()]),
        });
      }
    }
  });

  test("Envoy is the only LoadBalancer or externally reachable Service", () => {
    for (const svc of objects().filter((o) => o.kind === "Service")) {
      if (svc.metadata.name === nameOf("envoy")) continue;
      expect({ name: svc.metadata.name, type: svc.spec.type ?? "ClusterIP" }).toEqual({
        name: svc.metadata.name,
        type: "ClusterIP",
      });
    }
  });
});

describe("environment specifics", () => {
  test("the strict decoder rejects a misspelt field the JSON schemas would let through", () => {
    const typo = renderedText["values-prod.yaml"].replace(
      "readOnlyRootFilesystem: true",
      "readOnlyRootFileSystem: true",
    );
    expect(typo).not.toBe(renderedText["values-prod.yaml"]);
    const manifest = join(staged.dir, "rendered-typo.yaml");
    writeFileSync(manifest, typo);
    const result = run(tool("kube-strict"), [manifest]);
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'unknown field "spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem"',
    );
  });

  test("staging and prod read store URIs from an existing Secret; the chart renders no Secret for them", () => {
    for (const file of ["values-staging.yaml", "values-prod.yaml"] as const) {
      expect(rendered[file].filter((o) => o.kind === "Secret")).toEqual([]);
      const ref = envOf(container(rendered[file], "events")).EVENTS_MONGODB_URI.valueFrom.secretKeyRef;
      expect(ref).toEqual({ name: "odds-read-api-stores", key: "events-mongodb-uri" });
    }
  });

  test("dev creates the stores Secret pointing at the in-cluster MongoDB and Redis dependencies", () => {
    const secret = find(rendered["values-dev.yaml"], "Secret", "odds-read-api-stores");
    expect(secret.stringData["events-mongodb-uri"]).toBe("mongodb://odds-read-api-mongodb:27017/events");
    expect(secret.stringData["redis-url"]).toBe("redis://odds-read-api-redis-master:6379");
    expect(secret.stringData["ingest-mongodb-uri"]).toBe("mongodb://odds-read-api-mongodb:27017/ingest");
    expect(Object.keys(secret.stringData)).toHaveLength(7);
  });

  test("dev creates the edge's cursor Secret (48 random characters); staging and prod name the operator's", () => {
    const secret = find(rendered["values-dev.yaml"], "Secret", nameOf("edge"));
    expect(secret.stringData["cursor-secret"]).toMatch(/^[A-Za-z0-9]{48}$/);
    for (const file of ["values-staging.yaml", "values-prod.yaml"] as const) {
      const ref = envOf(container(rendered[file], "edge")).CURSOR_SECRET.valueFrom.secretKeyRef;
      expect(ref).toEqual({ name: "odds-read-api-edge", key: "cursor-secret" });
    }
  });

  test("staging and prod export traces to the OTLP collector; prod fails closed on rate limits", () => {
    for (const file of ["values-staging.yaml", "values-prod.yaml"] as const) {
      for (const component of SERVICES) {
        expect(envOf(container(rendered[file], component)).OTEL_EXPORTER_OTLP_ENDPOINT.value).toMatch(
          /^http:\/\/.+:4317$/,
        );
      }
    }
    expect(envOf(container(rendered["values-prod.yaml"], "edge")).RATE_LIMIT_FAIL_MODE.value).toBe("closed");
  });

  test("the chart's default source ranks are the sources ingest ships, mounted as SOURCES_FILE", () => {
    const cm = find(rendered["values.yaml"], "ConfigMap", `${nameOf("ingest")}-sources`);
    const shipped = parse(readFileSync(join(REPO_ROOT, "services", "ingest", "sources.yaml"), "utf8"));
    expect(parse(cm.data["sources.yaml"])).toEqual(shipped);
    expect(envOf(container(rendered["values.yaml"], "ingest")).SOURCES_FILE.value).toBe(
      "/etc/odds/sources/sources.yaml",
    );
  });

  test("the chart's default plans are the plans the usage service ships", () => {
    const cm = find(rendered["values.yaml"], "ConfigMap", `${nameOf("usage")}-plans`);
    const shipped = parse(readFileSync(join(REPO_ROOT, "services", "usage", "plans.yaml"), "utf8"));
    expect(parse(cm.data["plans.yaml"])).toEqual(shipped);
  });

  test("each service's memory limit covers its peak RSS in the committed full-scale runs, with a quarter to spare", () => {
    // npm run bench records each process's VmHWM in MiB; a limit below it gets the pod OOM-killed mid-cycle.
    // The latest run, and a first start on a new dataset (its backfill peaks above a regular cycle).
    const runs = ["latest.json", "fresh-dataset-first-start.json"].map((name) => {
      const text = readFileSync(join(REPO_ROOT, "test", "bench", "results", name), "utf8");
      return { name, peaks: (JSON.parse(text) as { peakRssMb: Record<string, number | null> }).peakRssMb };
    });
    const production = ["values.yaml", "values-staging.yaml", "values-prod.yaml"] as const;
    const short = production.flatMap((file) =>
      SERVICES.flatMap((component) => {
        const limitMiB = mebibytes(container(rendered[file], component).resources.limits.memory);
        return runs.map(({ name, peaks }) => ({ file, component, run: name, peak: peaks[component], limitMiB }));
      }).filter(({ peak, limitMiB }) => typeof peak !== "number" || limitMiB < 1.25 * peak),
    );
    expect(short).toEqual([]);
  });

  test("nodeFlags go before the entry point, per service over the default, and the archiver takes its own", () => {
    const objects = helmTemplate(staged.dir, "values-prod.yaml", [
      "--set-json",
      'defaults.nodeFlags=["--heap-growing-percent=50"]',
      "--set-json",
      "ingest.nodeFlags=[]",
      "--set-json",
      'archiver.nodeFlags=["--max-old-space-size=256"]',
    ]);
    const command = (component: string) =>
      find(objects, "Deployment", nameOf(component)).spec.template.spec.containers[0].command;
    expect(command("catalogue")).toEqual([
      "node",
      "--heap-growing-percent=50",
      "--require",
      "@odds/platform/tracing/register",
      "services/catalogue/dist/main.js",
    ]);
    // A service with flags of its own keeps them in place of the default.
    expect(command("history")).toEqual([
      "node",
      "--max-semi-space-size=32",
      "--require",
      "@odds/platform/tracing/register",
      "services/history/dist/main.js",
    ]);
    expect(command("ingest")).toEqual([
      "node",
      "--require",
      "@odds/platform/tracing/register",
      "services/ingest/dist/main.js",
    ]);
    const cron = find(objects, "CronJob", nameOf("archiver"));
    expect(cron.spec.jobTemplate.spec.template.spec.containers[0].command.slice(0, 2)).toEqual([
      "node",
      "--max-old-space-size=256",
    ]);
    // A flag that is not one is refused by the values schema.
    const bad = run(tool("helm"), ["template", "x", staged.dir, "--set-json", 'history.nodeFlags=["rm -rf"]']);
    expect(bad.status).not.toBe(0);
  });

  test("a service block overrides a default even with false (deep merge, not sprig merge)", () => {
    const objects = helmTemplate(staged.dir, "values-prod.yaml", ["--set", "events.autoscaling.enabled=false"]);
    expect(
      objects.find((o) => o.kind === "HorizontalPodAutoscaler" && o.metadata.name === nameOf("events")),
    ).toBeUndefined();
    expect(
      objects.find((o) => o.kind === "HorizontalPodAutoscaler" && o.metadata.name === nameOf("edge")),
    ).toBeDefined();
    expect(find(objects, "Deployment", nameOf("events")).spec.replicas).toBe(2);
  });

  test("source ranks given in values replace the defaults", () => {
    const objects = helmTemplate(staged.dir, "values-prod.yaml", [
      "--set-json",
      'ingest.sources={"sources":[{"id":"sim","rank":10}]}',
    ]);
    expect(parse(find(objects, "ConfigMap", `${nameOf("ingest")}-sources`).data["sources.yaml"])).toEqual({
      sources: [{ id: "sim", rank: 10 }],
    });
    expect(envOf(container(objects, "ingest")).SOURCES_FILE.value).toBe("/etc/odds/sources/sources.yaml");
  });

  test("with egress restricted, each workload may reach only DNS, the services it calls, its stores and the collector", () => {
    const objects = helmTemplate(staged.dir, "values-prod.yaml", [
      "--set",
      "networkPolicy.egress.enabled=true",
      "--set-json",
      'networkPolicy.egress.storesTo=[{"ipBlock":{"cidr":"10.20.0.0/16"}}]',
    ]);
    const egressOf = (component: string) => {
      const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === nameOf(component))!;
      expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
      const rules: any[] = policy.spec.egress;
      return {
        dns: rules.some((r) => r.ports.some((p: any) => p.port === 53)),
        services: rules
          .flatMap((r) => r.to.map((peer: any) => peer.podSelector?.matchLabels["app.kubernetes.io/component"]))
          .filter(Boolean)
          .sort(),
        stores: rules.some((r) => r.to.some((peer: any) => peer.ipBlock?.cidr === "10.20.0.0/16")),
        collector: rules.some((r) => r.ports.some((p: any) => p.port === 4317)),
      };
    };
    expect(egressOf("envoy")).toEqual({ dns: true, services: ["edge"], stores: false, collector: true });
    expect(egressOf("edge")).toEqual({
      dns: true,
      services: ["catalogue", "events", "history", "usage"],
      stores: true,
      collector: true,
    });
    expect(egressOf("ingest")).toEqual({
      dns: true,
      services: ["catalogue", "events", "history"],
      // its own database: what real sources spent of their plans
      stores: true,
      collector: true,
    });
    for (const component of ["events", "history", "catalogue", "usage", "archiver"]) {
      expect(egressOf(component)).toEqual({ dns: true, services: [], stores: true, collector: true });
    }
  });

  test("values.schema.json refuses a wrong value before anything renders, naming it", () => {
    const args = ["template", "x", staged.dir, "--kube-version", "1.30.0"];
    const badMode = run(tool("helm"), [...args, "--set", "edge.rateLimitFailMode=maybe"]);
    expect(badMode.status).not.toBe(0);
    expect(badMode.output).toContain("/edge/rateLimitFailMode");
    // Envoy reads protobuf durations: "2m" would only fail when Envoy starts.
    const badDuration = run(tool("helm"), [...args, "--set", "envoy.timeouts.route=2m"]);
    expect(badDuration.status).not.toBe(0);
    expect(badDuration.output).toContain("/envoy/timeouts/route");
  });

  /** `helm template` of the default values with one value set (failures expected). */
  const templateSetting = (setting: string) =>
    run(tool("helm"), ["template", "x", staged.dir, "--kube-version", "1.30.0", "--set", setting]);

  test("rendering for prod or staging fails, naming the value, without the operator's cursor Secret", () => {
    const result = templateSetting("environment=prod");
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("edge.cursorSecret.existingSecret is required in prod");
    const shortSecret = templateSetting("edge.cursorSecret.value=short");
    expect(shortSecret.status).not.toBe(0);
    expect(shortSecret.output).toContain("/edge/cursorSecret/value");
  });

  test("rendering fails, naming the value, when a store URI is missing and no existingSecret is set", () => {
    const result = templateSetting("stores.uris.usage=null");
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("stores.uris.usage is required");
  });
});

describe("values documentation", () => {
  type Tree = Record<string, unknown>;
  const leafPaths = (tree: Tree, prefix = ""): string[] =>
    Object.entries(tree).flatMap(([key, value]) =>
      value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0
        ? [`${prefix}${key}`, ...leafPaths(value as Tree, `${prefix}${key}.`)]
        : [`${prefix}${key}`],
    );
  const documented = (file: string) =>
    [...readFileSync(join(CHART_DIR, file), "utf8").matchAll(/^\s*## @param (\S+)/gm)].map((m) => m[1]);
  // Free-form blocks documented as a whole ([object]/[array]) and the bitnami dependencies' own values.
  const coveredBy = (path: string, params: string[]) =>
    params.includes(path) || params.some((p) => path.startsWith(`${p}.`)) || /^(mongodb|redis)\./.test(path);

  test("every value in values.yaml is documented with ## @param", () => {
    const values = parse(readFileSync(join(CHART_DIR, "values.yaml"), "utf8")) as Tree;
    const params = documented("values.yaml");
    const isLeaf = (path: string) => !leafPaths(values).some((other) => other.startsWith(`${path}.`));
    const undocumented = leafPaths(values).filter((path) => isLeaf(path) && !coveredBy(path, params));
    expect(undocumented).toEqual([]);
  });

  test.each(["values-dev.yaml", "values-staging.yaml", "values-prod.yaml", "values-local.yaml"])(
    "%s sets only values that values.yaml defines (no silently ignored typos)",
    (file) => {
      const defaults = parse(readFileSync(join(CHART_DIR, "values.yaml"), "utf8")) as Tree;
      const known = new Set(leafPaths(defaults));
      const params = documented("values.yaml");
      const freeForm = params.filter((p) => !known.has(p) || typeof lookup(defaults, p) === "object");
      const env = parse(readFileSync(join(CHART_DIR, file), "utf8")) as Tree;
      const defined = (path: string) => known.has(path) || freeForm.some((p) => path.startsWith(`${p}.`));
      // A workload's block deep-merges over `defaults`, so it may set any key `defaults` defines.
      const viaDefaults = (path: string) =>
        [...SERVICES, "archiver"].includes(path.split(".")[0]) && defined(path.replace(/^[^.]+\./, "defaults."));
      const unknown = leafPaths(env).filter(
        (path) => !defined(path) && !viaDefaults(path) && !/^(mongodb|redis)\./.test(path),
      );
      expect(unknown).toEqual([]);
    },
  );

  function lookup(tree: Tree, path: string): unknown {
    return path.split(".").reduce<unknown>((node, key) => (node as Tree | undefined)?.[key], tree);
  }
});

describe("values-local.yaml (the local test cluster of npm run test:cluster)", () => {
  test("renders no Envoy and no NetworkPolicy, and the helm-test pod checks the edge Service", () => {
    const objects = helmTemplate(staged.dir, "values.yaml", ["-f", join(staged.dir, "values-local.yaml")]);
    expect(objects.filter((o) => o.metadata.name.endsWith("-envoy")).map((o) => o.kind)).toEqual([]);
    expect(objects.filter((o) => o.kind === "NetworkPolicy")).toEqual([]);
    const testPod = objects.find((o) => o.kind === "Pod") as any;
    expect(testPod.spec.containers[0].args.at(-1)).toBe(`http://${nameOf("edge")}:8080/v2/health`);
    expect(container(objects, "edge").imagePullPolicy).toBe("Never");
  });
});
