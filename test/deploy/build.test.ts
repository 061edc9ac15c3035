import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { validate as lintDockerfile } from "dockerfile-utils";
import { parse } from "yaml";
import { CHART_DIR, REPO_ROOT, SERVICES } from "./chart-render";

const read = (...path: string[]) => readFileSync(join(REPO_ROOT, ...path), "utf8");

describe("skaffold.yaml", () => {
  const skaffold = parse(read("skaffold.yaml"));

  // The fields of skaffold's v4beta11 schema (pkg/skaffold/schema/latest) this file may use: skaffold refuses
  // unknown fields (useBuildKit instead of useBuildkit fails `skaffold run`), and no skaffold binary runs here.
  const KNOWN: Record<string, string[]> = {
    "": ["apiVersion", "kind", "metadata", "build", "deploy", "profiles"],
    build: ["artifacts", "tagPolicy", "local"],
    "build.local": ["push", "useBuildkit", "useDockerCLI", "concurrency", "tryImportMissing"],
    "build.tagPolicy": ["gitCommit", "sha256", "envTemplate", "dateTime", "inputDigest"],
    "build.tagPolicy.gitCommit": ["variant", "prefix", "ignoreChanges"],
    "build.artifacts[]": ["image", "context", "docker"],
    "build.artifacts[].docker": ["dockerfile", "buildArgs", "target", "cacheFrom", "network", "secrets"],
    deploy: ["helm", "kubectl", "statusCheck", "statusCheckDeadlineSeconds"],
    "deploy.helm": ["releases", "flags"],
    "deploy.helm.releases[]": [
      "name",
      "chartPath",
      "remoteChart",
      "valuesFiles",
      "namespace",
      "version",
      "setValues",
      "setValueTemplates",
      "setFiles",
      "createNamespace",
      "wait",
      "recreatePods",
      "skipBuildDependencies",
      "upgradeOnChange",
      "overrides",
    ],
    "profiles[]": ["name", "activation", "build", "deploy", "patches"],
  };
  const FREE_FORM = new Set([
    "build.artifacts[].docker.buildArgs",
    "deploy.helm.releases[].setValues",
    "deploy.helm.releases[].setValueTemplates",
    "metadata",
  ]);

  function unknownFields(node: unknown, path: string): string[] {
    if (Array.isArray(node)) return node.flatMap((item) => unknownFields(item, `${path}[]`));
    if (node === null || typeof node !== "object" || FREE_FORM.has(path)) return [];
    const schemaPath = path.replace(/^profiles\[\]\.(build|deploy)/, "$1");
    const known = KNOWN[schemaPath];
    if (!known) return [];
    return Object.entries(node).flatMap(([key, value]) =>
      known.includes(key) ? unknownFields(value, path ? `${path}.${key}` : key) : [`${path ? `${path}.` : ""}${key}`],
    );
  }

  test("uses only fields skaffold's v4beta11 schema defines", () => {
    expect(skaffold.apiVersion).toBe("skaffold/v4beta11");
    expect(unknownFields(skaffold, "")).toEqual([]);
    expect(unknownFields({ build: { local: { useBuildKit: true } } }, "")).toEqual(["build.local.useBuildKit"]);
  });

  test("builds one image per service from the one Dockerfile, selected by the SERVICE build arg", () => {
    const artifacts = skaffold.build.artifacts;
    expect(artifacts.map((a: any) => a.docker.buildArgs.SERVICE).sort()).toEqual([...SERVICES].sort());
    for (const artifact of artifacts) {
      expect(artifact.image).toBe(`odds-${artifact.docker.buildArgs.SERVICE}`);
      expect(artifact.context).toBe(".");
      expect(artifact.docker.dockerfile).toBe("deploy/docker/Dockerfile");
      expect(existsSync(join(REPO_ROOT, "services", artifact.docker.buildArgs.SERVICE, "package.json"))).toBe(true);
    }
  });

  test.each(["dev", "staging", "prod"])(
    "profile %s deploys the chart with values-%s.yaml and every built image",
    (env) => {
      const profile = skaffold.profiles.find((p: any) => p.name === env);
      const [release] = profile.deploy.helm.releases;
      expect(release.chartPath).toBe("charts/odds-read-api");
      expect(release.valuesFiles).toEqual([`charts/odds-read-api/values-${env}.yaml`]);
      expect(existsSync(join(REPO_ROOT, release.valuesFiles[0]))).toBe(true);
      for (const service of SERVICES) {
        expect(release.setValueTemplates[`${service}.image.repository`]).toBe(`{{.IMAGE_REPO_odds_${service}}}`);
        expect(release.setValueTemplates[`${service}.image.tag`]).toBe(`{{.IMAGE_TAG_odds_${service}}}`);
        // The value paths skaffold sets exist in the chart.
        expect(parse(readFileSync(join(CHART_DIR, "values.yaml"), "utf8"))[service].image.repository).toBeDefined();
      }
      if (env !== "dev") expect(profile.build.local.push).toBe(true);
    },
  );
});

describe("deploy/docker/Dockerfile", () => {
  const dockerfile = read("deploy", "docker", "Dockerfile");
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;

  test("has no errors or warnings by the Dockerfile validator of the Docker language server (dockerfile-utils)", () => {
    const problems = lintDockerfile(dockerfile, {}).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(lintDockerfile("FROM node:20\nCOPY package.json\n", {}).length).toBeGreaterThan(0);
  });

  test("is multi-stage: the build stage runs npm ci and the whole build, the runtime stage installs production dependencies only", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/RUN .*npm ci\b/);
    expect(stages[0]).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/npm ci --omit=dev --workspace "services\/\$SERVICE"/);
    expect(runtime).not.toMatch(/npm run|npm install/);
  });

  test("the runtime stage runs as a non-root numeric user and starts the service with the tracing preload", () => {
    const user = runtime.match(/^USER (\d+)(?::(\d+))?$/m);
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(runtime).toContain("node --require @odds/platform/tracing/register");
    expect(runtime).toContain("services/$SERVICE/dist/main.js");
  });

  test("copies every workspace manifest npm ci needs to check the lock file", () => {
    const workspaces: string[] = JSON.parse(read("package.json")).workspaces;
    for (const workspace of workspaces) {
      expect(stages[0]).toContain(`COPY ${workspace}/package.json ${workspace}/`);
      expect(runtime).toContain(`/app/${workspace}/package.json ${workspace}/`);
    }
  });

  // The runtime stage installs one workspace's dependencies only: a module that works in the monorepo
  // because another package hoisted it would be missing from that service's image.
  test.each([...SERVICES, "platform"])(
    "every module services/%s imports at run time is one of its declared dependencies",
    (name) => {
      const dir = join(REPO_ROOT, "services", name);
      const declared = Object.keys(JSON.parse(read("services", name, "package.json")).dependencies ?? {});
      const sources = (readdirSync(join(dir, "src"), { recursive: true }) as string[])
        .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.split("/").includes("testing"))
        .map((file) => join(dir, "src", file));
      expect(sources.length).toBeGreaterThan(0);
      const undeclared = sources.flatMap((file) =>
        [
          ...readFileSync(file, "utf8").matchAll(
            /^\s*(?:import|export)\s+(?!type\b)([^;]*?)\s*from\s+"([^".][^"]*)"|require\("([^".][^"]*)"\)/gms,
          ),
        ]
          // `import { type A, type B } from "x"` is erased by the compiler like `import type`.
          .filter(
            (match) => match[3] !== undefined || !/^\{\s*(type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?\s*)+\}$/.test(match[1]),
          )
          .map((match) => match[2] ?? match[3])
          .filter((spec) => !spec.startsWith("node:"))
          .map((spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]))
          .filter((module) => !builtinModules.includes(module) && !declared.includes(module))
          .map((module) => `${module} (${relative(dir, file)})`),
      );
      expect(undeclared).toEqual([]);
    },
  );

  test(".dockerignore keeps dependencies, build output, git and local data out of the context", () => {
    const ignored = read(".dockerignore").split("\n");
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist", ".git", ".local", ".tools"]));
  });
});

describe("deploy/otel/collector.yaml", () => {
  const collector = parse(read("deploy", "otel", "collector.yaml"));

  test("every pipeline uses only components the config defines", () => {
    for (const [name, pipeline] of Object.entries<any>(collector.service.pipelines)) {
      for (const kind of ["receivers", "processors", "exporters"]) {
        for (const component of pipeline[kind] ?? []) {
          expect({ pipeline: name, component, defined: component in collector[kind] }).toEqual({
            pipeline: name,
            component,
            defined: true,
          });
        }
      }
    }
  });

  test("scrubs apiKey from span URLs before traces leave the collector, behind the memory limiter", () => {
    const traces = collector.service.pipelines.traces;
    expect(traces.receivers).toContain("otlp");
    expect(traces.processors[0]).toBe("memory_limiter");
    expect(traces.processors).toContain("transform/redact-api-keys");
    expect(traces.processors.indexOf("transform/redact-api-keys")).toBeLessThan(traces.processors.indexOf("batch"));
    const statements: string[] = collector.processors["transform/redact-api-keys"].trace_statements[0].statements;
    for (const attribute of ["url.full", "url.query", "http.url", "http.target"]) {
      expect(statements.some((s) => s.includes(`attributes["${attribute}"]`) && s.includes("apiKey=REDACTED"))).toBe(
        true,
      );
    }
    expect(collector.receivers.otlp.protocols.grpc.endpoint).toMatch(/:4317$/);
  });
});
