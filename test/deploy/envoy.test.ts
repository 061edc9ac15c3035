import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, removeScratchFolder, scratchFolder } from "@odds/local";
import { stringify } from "yaml";
import {
  CHART_DIR,
  VALUES_FILES,
  envoyConfig,
  find,
  helmTemplate,
  nameOf,
  run,
  stageChart,
  tool,
  type K8sObject,
  type ValuesFile,
} from "./chart-render";

let staged: ReturnType<typeof stageChart>;
let scratch: string;
const rendered = {} as Record<ValuesFile, K8sObject[]>;

beforeAll(() => {
  staged = stageChart();
  scratch = scratchFolder("odds-envoy-");
  for (const file of VALUES_FILES) rendered[file] = helmTemplate(staged.dir, file);
});
afterAll(() => {
  staged?.cleanup();
  removeScratchFolder(scratch);
});

const validate = (name: string, config: string) => {
  const path = join(scratch, name);
  writeFileSync(path, config);
  return run(tool("envoy-validate"), [path]);
};
const typed = (list: any[], name: string) => list.find((entry) => entry.name === name)?.typed_config;
const listener = (config: any, name: string) => config.static_resources.listeners.find((l: any) => l.name === name);
const manager = (l: any) => typed(l.filter_chains[0].filters, "envoy.filters.network.http_connection_manager");

test("deploy/envoy/envoy.yaml is the file the chart renders", () => {
  expect(readFileSync(join(REPO_ROOT, "deploy", "envoy", "envoy.yaml"), "utf8")).toBe(
    readFileSync(join(CHART_DIR, "files", "envoy.yaml"), "utf8"),
  );
});

test("the validator rejects configs that break the Envoy v3 API (so a pass means something)", () => {
  const good = find(rendered["values-prod.yaml"], "ConfigMap", nameOf("envoy")).data["envoy.yaml"] as string;
  const broken = {
    "unknown field": good.replace("stat_prefix: public", "stat_prefix: public\n                no_such_field: 1"),
    "failed validation rule": good.replace(/max_request_headers_kb: \d+/, "max_request_headers_kb: 100000"),
    "unknown extension type": good.replace("filters.http.buffer.v3.Buffer", "filters.http.nope.v3.Nope"),
  };
  for (const [problem, config] of Object.entries(broken)) {
    expect(config).not.toBe(good);
    const result = validate(`broken-${problem.replace(/ /g, "-")}.yaml`, config);
    expect({ problem, status: result.status }).toEqual({ problem, status: 1 });
    expect(result.output).toContain("INVALID");
  }
});

describe.each(VALUES_FILES)("Envoy config rendered with %s", (file) => {
  const config = () => envoyConfig(rendered[file]);
  const publicManager = () => manager(listener(config(), "public"));

  test("is a valid Envoy v3 bootstrap (go-control-plane: strict parse + Validate of every message)", () => {
    const result = validate(`envoy-${file}`, stringify(config()));
    expect(result.output).toContain("valid Envoy v3 bootstrap");
    expect(result.status).toBe(0);
  });

  test("forwards only /v2/ and the v1 preview's /v1/ to the edge, alike; every other path is answered 404 by Envoy", () => {
    const routes = publicManager().route_config.virtual_hosts.flatMap((vh: any) => vh.routes);
    const forwarded = routes.filter((r: any) => r.route && r.name !== "v1_stream");
    expect(forwarded.map((r: any) => r.match)).toEqual([{ prefix: "/v2/" }, { prefix: "/v1/" }]);
    expect(forwarded[1].route).toEqual(forwarded[0].route);
    expect(forwarded[0].route.cluster).toBe("edge");
    expect(forwarded[0].route.prefix_rewrite).toBeUndefined();
    for (const r of routes.filter((r: any) => !r.route)) expect(r.direct_response.status).toBe(404);
    // The edge cluster is the only upstream of the public listener, reached through the headless Service.
    const edge = config().static_resources.clusters.find((c: any) => c.name === "edge");
    const address = edge.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
    expect(address.address).toBe(`${nameOf("edge")}-pods.odds.svc.cluster.local`);
    expect(address.port_value).toBe(8080);
  });

  test("upgrades to WebSocket only on /v1/stream/, before /v1/, unbuffered, unretried, with timeouts of its own", () => {
    const hcm = publicManager();
    expect(hcm.upgrade_configs).toEqual([{ upgrade_type: "websocket", enabled: false }]);
    const routes = hcm.route_config.virtual_hosts[0].routes;
    const names = routes.map((r: any) => r.name);
    expect(names.indexOf("v1_stream")).toBeLessThan(names.indexOf("v1"));
    const stream = routes.find((r: any) => r.name === "v1_stream");
    expect(stream.match).toEqual({ prefix: "/v1/stream/" });
    expect(stream.route.cluster).toBe("edge");
    expect(stream.route.upgrade_configs).toEqual([{ upgrade_type: "websocket", enabled: true }]);
    expect(stream.route.retry_policy).toBeUndefined();
    expect(stream.route.timeout).toBe("0s");
    // Idle above the 15 s heartbeat; the whole stream above the edge's 1 hour lifetime (the edge closes first).
    expect(parseInt(stream.route.idle_timeout, 10)).toBeGreaterThan(15);
    expect(parseInt(stream.route.max_stream_duration.max_stream_duration, 10)).toBeGreaterThan(3600);
    expect(stream.typed_per_filter_config["envoy.filters.http.buffer"].disabled).toBe(true);
    for (const r of routes.filter((r: any) => r.name !== "v1_stream")) expect(r.route?.upgrade_configs).toBeUndefined();
  });

  test("retries reads only (GET/HEAD), on gateway errors and resets, within a per-try timeout", () => {
    const route = publicManager().route_config.virtual_hosts[0].routes.find((r: any) => r.name === "v2").route;
    expect(route.timeout).toMatch(/^\d+s$/);
    expect(route.retry_policy.per_try_timeout).toMatch(/^\d+s$/);
    expect(parseInt(route.retry_policy.per_try_timeout, 10)).toBeLessThan(parseInt(route.timeout, 10));
    expect(route.retry_policy.retry_on.split(",")).toEqual(expect.arrayContaining(["gateway-error", "reset"]));
    expect(route.retry_policy.retry_on).not.toMatch(/(^|,)5xx(,|$)/); // 500/501 are deterministic
    expect(route.retry_policy.retriable_request_headers).toEqual([
      { name: ":method", string_match: { safe_regex: { regex: "GET|HEAD" } } },
    ]);
  });

  test("limits request size, headers and flood rate, and times out slow clients", () => {
    const hcm = publicManager();
    expect(hcm.max_request_headers_kb).toBeLessThanOrEqual(32);
    expect(hcm.common_http_protocol_options.max_headers_count).toBeGreaterThan(0);
    expect(hcm.request_headers_timeout).toBeDefined();
    expect(hcm.stream_idle_timeout).toBeDefined();
    expect(typed(hcm.http_filters, "envoy.filters.http.buffer").max_request_bytes).toBeLessThanOrEqual(65536);
    const flood = typed(hcm.http_filters, "envoy.filters.http.local_ratelimit");
    expect(flood.token_bucket.max_tokens).toBeGreaterThan(0);
    expect(flood.filter_enforced.default_value.numerator).toBe(100);
    expect(hcm.http_filters.at(-1).name).toBe("envoy.filters.http.router");
  });

  test("answers oversized requests (431 headers, 413 body) and its other refusals in the API's failure envelope", () => {
    const replies = publicManager().local_reply_config;
    expect(replies.body_format.json_format).toEqual({ success: false, error: "%LOCAL_REPLY_BODY%" });
    const mapped = (status: number) =>
      replies.mappers.find((m: any) => m.filter.status_code_filter?.comparison.value.default_value === status)
        ?.body_format_override.json_format;
    expect(mapped(431)).toMatchObject({ success: false, error: "Request too large" });
    expect(mapped(431).message).toContain(`${publicManager().max_request_headers_kb} KiB`);
    expect(mapped(413)).toMatchObject({ success: false, error: "Request too large" });
  });

  test("access logs are JSON lines whose path drops the query string (no apiKey) and which log no headers with keys", () => {
    const [log] = publicManager().access_log;
    const format = log.typed_config.log_format;
    expect(format.json_format.path).toBe("%REQ_WITHOUT_QUERY(X-ENVOY-ORIGINAL-PATH?:PATH)%");
    expect(format.formatters.map((f: any) => f.name)).toContain("envoy.formatter.req_without_query");
    const fields = Object.values<string>(format.json_format).join(" ");
    expect(fields).not.toMatch(/%REQ\((:PATH|X-ENVOY-ORIGINAL-PATH|X-API-KEY|AUTHORIZATION)[^)]*\)%/i);
    expect(fields).not.toMatch(/QUERY_PARAM|apiKey/i);
  });

  test("health-checks each edge pod on GET /v2/health and keeps the admin API on loopback", () => {
    const edge = config().static_resources.clusters.find((c: any) => c.name === "edge");
    expect(edge.health_checks[0].http_health_check.path).toBe("/v2/health");
    expect(edge.type).toBe("STRICT_DNS");
    expect(config().admin.address.socket_address.address).toBe("127.0.0.1");
    const ops = manager(listener(config(), "ops"));
    expect(ops.route_config.virtual_hosts[0].routes.filter((r: any) => r.route)).toEqual([
      { match: { path: "/stats/prometheus" }, route: { cluster: "envoy_admin" } },
    ]);
  });

  test("terminates TLS with the certificate of the mounted Secret when TLS is on, and traces to the collector when OpenTelemetry is on", () => {
    const deployment = find(rendered[file], "Deployment", nameOf("envoy"));
    const tlsVolume = deployment.spec.template.spec.volumes.find((v: any) => v.name === "tls");
    const socket = listener(config(), "public").filter_chains[0].transport_socket;
    if (file === "values-dev.yaml") {
      expect(socket).toBeUndefined();
      expect(tlsVolume).toBeUndefined();
    } else {
      const certificate = socket.typed_config.common_tls_context.tls_certificates[0];
      expect(certificate).toEqual({
        certificate_chain: { filename: "/etc/envoy-tls/tls.crt" },
        private_key: { filename: "/etc/envoy-tls/tls.key" },
      });
      expect(tlsVolume.secret.secretName).toMatch(/tls$/);
      const mount = deployment.spec.template.spec.containers[0].volumeMounts.find((m: any) => m.name === "tls");
      expect(mount).toEqual({ name: "tls", mountPath: "/etc/envoy-tls", readOnly: true });
      expect(socket.typed_config.common_tls_context.tls_params.tls_minimum_protocol_version).toMatch(/TLSv1_[23]/);
    }
    const tracing = publicManager().tracing;
    if (file === "values-staging.yaml" || file === "values-prod.yaml") {
      expect(tracing.provider.name).toBe("envoy.tracers.opentelemetry");
      expect(tracing.provider.typed_config.grpc_service.envoy_grpc.cluster_name).toBe("otel_collector");
    } else {
      expect(tracing).toBeUndefined();
    }
  });

  test("is deployed as its own Deployment behind the public Service", () => {
    const service = find(rendered[file], "Service", nameOf("envoy"));
    expect(service.spec.type).toBe(file === "values-dev.yaml" ? "ClusterIP" : "LoadBalancer");
    expect(service.spec.ports[0].targetPort).toBe("public");
    const container = find(rendered[file], "Deployment", nameOf("envoy")).spec.template.spec.containers[0];
    expect(container.args.slice(0, 2)).toEqual(["--config-path", "/etc/envoy/envoy.yaml"]);
    // Keeps serving while the load balancer drops a terminating pod (no shell in the distroless image).
    expect(container.lifecycle.preStop.sleep.seconds).toBeGreaterThan(0);
    expect(container.ports.find((p: any) => p.name === "public").containerPort).toBe(
      listener(config(), "public").address.socket_address.port_value,
    );
  });
});
