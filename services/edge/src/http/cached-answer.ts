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
  const bytes = await answer.bytes(encoding);
  // Already encoded: koa-compress leaves a response with Content-Encoding alone.
  if (encoding !== "identity") ctx.set("Content-Encoding", encoding);
  ctx.body = bytes;
  ctx.state.entities = answer.entities;
}
