import type { EventEmitter } from "node:events";
import type { Http2Session } from "node:http2";
import type { Server } from "@grpc/grpc-js";

/**
 * HTTP/2 receive window of every gRPC connection, per stream and per connection, on both ends. Node's default (64 KB
 * for the whole connection) lets a multi-megabyte message through 64 KB per round trip, shared by every call on the
 * connection, and each round trip waits for both processes to be scheduled: 16 concurrent big pages (a 10,000-market
 * page is 4.7 MB) crawled past their deadlines with both services idle, and each of ingest's 12 MB write calls took
 * 0.5-1.2 s to cross to an idle server while ingest built the next events (docs/performance.md "Write calls through a
 * wide window"). The receiver holds what the window admits only until it reads it.
 */
export const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

/** What `widenReceiveWindows` reads of grpc-js's server: the HTTP/2 servers it bound, each emitting its sessions. */
interface BoundHttp2Servers {
  http2Servers?: Map<EventEmitter, unknown>;
}

/**
 * Gives every session a bound gRPC server accepts the receive window the clients have. grpc-js 1.14 reads
 * `grpc-node.flow_control_window` on its clients only (the server side is grpc/grpc-node#3058, not released), so
 * this reaches the HTTP/2 servers grpc-js bound and widens each new session: its streams' initial window (a SETTINGS
 * frame) and the connection's window. Call it once the server is bound. Answers false when grpc-js no longer holds
 * its HTTP/2 servers where this looks (a grpc-js upgrade): the windows then stay at 64 KB, and the platform's gRPC
 * test of the windows a connection is given fails.
 */
export function widenReceiveWindows(server: Server, windowBytes = FLOW_CONTROL_WINDOW_BYTES): boolean {
  const http2Servers = (server as unknown as BoundHttp2Servers).http2Servers;
  if (!(http2Servers instanceof Map) || http2Servers.size === 0) return false;
  for (const http2Server of http2Servers.keys()) {
    http2Server.on("session", (session: Http2Session) => {
      session.settings({ initialWindowSize: windowBytes });
      session.setLocalWindowSize(windowBytes);
    });
  }
  return true;
}
