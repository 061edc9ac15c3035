import { createServer, type Server } from "node:http";
import { collectDefaultMetrics, Registry } from "prom-client";

export { Counter, Gauge, Histogram } from "prom-client";

/** One Prometheus registry per process, with the Node runtime's default metrics. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Serves GET /metrics on the given port (0 disables it). */
export function startMetricsServer(port: number, host = "0.0.0.0"): Promise<Server | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  const server = createServer((req, res) => {
    if (req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    metricsRegistry.metrics().then(
      (body) => res.writeHead(200, { "content-type": metricsRegistry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}
