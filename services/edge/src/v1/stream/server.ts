import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { OddsStream, type OddsStreamDeps } from "./odds-stream";
import { STREAM_CLOSE, STREAM_PATH } from "./protocol";

/** A subscription is one small JSON message; anything larger is refused by the library (1009). */
const MAX_CLIENT_MESSAGE_BYTES = 8 * 1024;

/**
 * Serves WebSocket upgrades of GET /v1/stream/odds on the edge's HTTP server with `ws`; an upgrade
 * to any other path is answered 404 (v2's /stream/events keeps answering 501 to plain GETs).
 * Returns what closes every open stream at shutdown.
 */
export function attachOddsStream(server: Server, deps: OddsStreamDeps): { closeAll(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  const open = new Set<OddsStream>();
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://edge").pathname;
    if (path !== STREAM_PATH) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const stream = new OddsStream(ws, request.headers, deps);
      open.add(stream);
      ws.on("close", () => open.delete(stream));
      stream.start();
    });
  });
  return {
    closeAll() {
      for (const stream of open) stream.close(STREAM_CLOSE.shutdown);
      wss.close();
    },
  };
}
