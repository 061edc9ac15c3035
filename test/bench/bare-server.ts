// The physical limit beside each case: a bare node:http server answering a case's exact
// response bytes from memory. Bodies come from files; GET /<index> answers body <index>.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

export interface BareBody {
  file: string;
  headers: Record<string, string>;
}

const bodies = (JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as BareBody[]).map((body) => ({
  bytes: readFileSync(body.file),
  headers: body.headers,
}));

const server = createServer((request, response) => {
  const body = bodies[Number((request.url ?? "/").slice(1))];
  if (!body) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { ...body.headers, "content-length": body.bytes.length });
  response.end(body.bytes);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
