import type { Server } from "node:http";

/**
 * Stops an HTTP server without resetting keep-alive clients. `server.close()` alone closes every
 * idle keep-alive connection at once, and a client that sends its next request on one just then
 * gets a reset. Instead, every response from now on carries `Connection: close` (so each busy
 * client reconnects, to another pod, after its current request); after `graceMs` the server
 * stops listening but leaves its connections alone for `settleMs`: one accepted a moment ago
 * counts as idle, yet its request is on the way (with `Connection: close` every request comes
 * on a fresh connection). Only then are connections still idle closed; busy ones close after
 * their response.
 */
export function drainHttpServer(server: Server, graceMs: number, settleMs = 1_000): Promise<void> {
  server.on("request", (_req, res) => {
    if (!res.headersSent) res.setHeader("connection", "close");
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      const closeIdleConnections = server.closeIdleConnections.bind(server);
      // http.Server#close closes idle connections at once; defer that by settleMs.
      server.closeIdleConnections = () => undefined;
      server.close(() => resolve());
      setTimeout(closeIdleConnections, settleMs).unref();
    }, graceMs);
    timer.unref();
  });
}
