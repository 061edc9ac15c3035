import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { validate as lintDockerfile } from "dockerfile-utils";
import { REPO_ROOT, SERVICE_MALLOC_ENV } from "@odds/local";
import { parse } from "yaml";
import { CHART_DIR, SERVICES } from "./chart-render";

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
  /** The stage named `name`, from its FROM line (`<base> AS <name>`) on. */
  const stage = (name: string) => stages.find((s) => s.split("\n")[0].endsWith(` AS ${name}`)) ?? "";
  const base = (text: string) => text.split("\n")[0].split(" AS ")[0];

  test("has no errors or warnings by the Dockerfile validator of the Docker language server (dockerfile-utils)", () => {
    const problems = lintDockerfile(dockerfile, {}).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(lintDockerfile("FROM node:20\nCOPY package.json\n", {}).length).toBeGreaterThan(0);
  });

  test("is multi-stage: the build stage runs npm ci and the whole build, the production dependencies are installed once for every service, each runtime image adds only its code", () => {
    const [build, deps] = [stage("build"), stage("deps")];
    expect(base(build)).toBe("manifests");
    expect(build).toMatch(/RUN .*npm ci\b/);
    expect(build).toMatch(/RUN npm run build/);
    // The production dependencies: one install for every service's workspace, independent of SERVICE, so
    // the six images share it (built once, stored once on a node).
    expect(base(deps)).toBe("manifests");
    expect(deps).toMatch(/RUN [^]*npm ci --omit=dev/);
    const installed = [...deps.matchAll(/--workspace (\S+)/g)].map((m) => m[1]);
    expect(installed.sort()).toEqual(["proto", "services/platform", ...SERVICES.map((s) => `services/${s}`)].sort());
    expect(deps).not.toContain("SERVICE");
    // Each service's image: those dependencies plus its own compiled code, nothing installed or built.
    expect(runtime).toBe(stage("runtime"));
    expect(base(runtime)).toBe("deps");
    expect(runtime).toContain("COPY --from=build /out/ ./");
    expect(runtime).not.toMatch(/npm ci|npm run|npm install/);
  });

  test("the runtime stage runs as a non-root numeric user and starts the service with the tracing preload", () => {
    const user = runtime.match(/^USER (\d+)(?::(\d+))?$/m);
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(runtime).toContain("node --require @odds/platform/tracing/register");
    expect(runtime).toContain("services/$SERVICE/dist/main.js");
  });

  test("the runtime stage sets the malloc environment the local launcher gives every service", () => {
    // ENV name=value pairs of the runtime stage, continuation lines joined.
    const env = Object.fromEntries(
      [...runtime.replace(/\\\n\s*/g, " ").matchAll(/^ENV (.+)$/gm)].flatMap((line) =>
        line[1]
          .trim()
          .split(/\s+/)
          .map((pair) => pair.split("=", 2)),
      ),
    );
    expect(Object.keys(SERVICE_MALLOC_ENV).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(SERVICE_MALLOC_ENV)) expect(env[name]).toBe(value);
  });

  test("copies every workspace manifest npm ci needs to check the lock file", () => {
    const workspaces: string[] = JSON.parse(read("package.json")).workspaces;
    const manifests = stage("manifests");
    expect(manifests).toContain("COPY package.json package-lock.json ./");
    for (const workspace of workspaces) expect(manifests).toContain(`COPY ${workspace}/package.json ${workspace}/`);
  });

  // Every image carries the production dependencies of all the services (one shared install): a module a
  // service imports without declaring it would still load there, by accident. Each import must be declared.
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
