import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { drainHttpServer } from "./http-drain";

function get(port: number, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("drainHttpServer", () => {
  it("tells busy keep-alive clients to reconnect and loses no request while it drains", async () => {
    const server = createServer((_req, res) => setTimeout(() => res.end("ok"), 2));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    let draining = false;
    let closed = false;
    const results: Array<{ status: number; connection: string | undefined; draining: boolean }> = [];
    const clients = Array.from({ length: 4 }, async () => {
      while (!closed) {
        const wasDraining = draining;
        results.push({ ...(await get(port, agent)), draining: wasDraining });
      }
    });
    await new Promise((r) => setTimeout(r, 100));
    draining = true;
    const drained = drainHttpServer(server, 300);
    await new Promise((r) => setTimeout(r, 200));
    closed = true;
    await Promise.all(clients);
    await drained;
    agent.destroy();
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.draining).length).toBeGreaterThan(4);
    expect(results.filter((r) => r.draining).every((r) => r.connection === "close")).toBe(true);
    expect(server.listening).toBe(false);
  });
});
