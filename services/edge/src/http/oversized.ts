import type { Server } from "node:http";
import type { Socket } from "node:net";

/** The failure envelope as raw HTTP: these requests never reach Koa, the parser refused them. */
function rawFailure(status: number, reason: string, error: string, message: string): string {
  const body = JSON.stringify({ success: false, error, message });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Request line plus headers above Node's limit (16 KiB): a 100 KB query, 10,000 IDs, a huge header. */
export const TOO_LARGE = rawFailure(
  431,
  "Request Header Fields Too Large",
  "Request too large",
  "the request line and headers must fit in 16 KiB; send long ID lists in several requests",
);
const MALFORMED = rawFailure(400, "Bad Request", "Invalid params", "the request is not valid HTTP/1.1");

/**
 * Answers requests the HTTP parser refuses in the contract's envelope instead of Node's empty
 * 431 or a bare reset. Envoy bounds the same sizes in front of the edge (max_request_headers_kb).
 */
export function answerUnparseableRequests(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(err.code === "HPE_HEADER_OVERFLOW" ? TOO_LARGE : MALFORMED);
  });
}
