import { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { Context } from "koa";
import type { Answer, Encoding } from "../cache/answer";

/**
 * Sends a cached answer: the representation the client accepts (brotli, gzip or identity, made
 * once per answer), its strong ETag, and 304 with no body when `If-None-Match` names it. The
 * entities counted are the objects the response carries: none on a 304.
 */
export async function sendAnswer(ctx: Context, answer: Answer): Promise<void> {
  const accepted = answer.compressible() ? ctx.acceptsEncodings("br", "gzip", "identity") : "identity";
  const encoding: Encoding = accepted === "br" || accepted === "gzip" ? accepted : "identity";
  // The compression middleware has said so already where it runs; vary() re-parses the header each time.
  if (!/accept-encoding/i.test(ctx.response.get("Vary"))) ctx.vary("Accept-Encoding");
  ctx.compress = false;
  ctx.status = 200;
  ctx.type = "application/json";
  ctx.etag = answer.etagOf(encoding);
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
    ctx.state.entities = 0;
    return;
  }
  if (encoding !== "identity") {
    const bytes = await answer.bytes(encoding);
    // Already encoded: koa-compress leaves a response with Content-Encoding alone.
    ctx.set("Content-Encoding", encoding);
    ctx.body = bytes;
  } else if (answer.parts.length === 1) {
    ctx.body = answer.parts[0];
  } else {
    // An answer in parts (sharing another rendering's items) is sent as its parts, never joined into a copy.
    ctx.body = new PartsBody(answer.parts);
    ctx.length = answer.length;
  }
  ctx.state.entities = answer.entities;
}

/**
 * An answer's parts as a response body. Koa pipes a stream body to the response; piped, each part waited for the
 * last to drain, and a 38 MB page of 200 parts took a fifth more CPU to send than one Buffer (docs/performance.md
 * "Renderings that share their unchanged items"). Written to a response, the parts are queued at once while it is
 * corked, so the socket takes them as one vectored write, as it takes one Buffer; any other reader is pushed them in
 * order.
 */
class PartsBody extends Readable {
  constructor(private readonly parts: readonly Buffer[]) {
    super();
  }

  override _read(): void {
    for (const part of this.parts) this.push(part);
    this.push(null);
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    if (!(destination instanceof ServerResponse) || options?.end === false) return super.pipe(destination, options);
    destination.cork();
    for (const part of this.parts) destination.write(part);
    destination.end();
    destination.uncork();
    return destination;
  }
}
