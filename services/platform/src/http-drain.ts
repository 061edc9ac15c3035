import type { Server } from "node:http";

/**
 * Stops an HTTP server without resetting keep-alive clients. `server.close()` alone closes every
 * idle keep-alive connection at once, and a client that sends its next request on one just then
 * gets a reset. Instead, every response from now on carries `Connection: close` (so each busy
 * client reconnects, to another pod, after its current request); after `graceMs` the server
 * closes, which then only drops connections that stayed idle all that time.
 */
export function drainHttpServer(server: Server, graceMs: number): Promise<void> {
  server.on("request", (_req, res) => {
    if (!res.headersSent) res.setHeader("connection", "close");
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.close(() => resolve()), graceMs);
    timer.unref();
  });
}
