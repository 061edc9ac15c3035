import type { Middleware } from "koa";

/** Every coding the compression middleware can answer in, identity included. */
const CODINGS = ["zstd", "br", "gzip", "deflate", "identity"];

/**
 * When the client refuses every coding we have (`gzip;q=0, identity;q=0`) the answer goes
 * uncompressed: RFC 9110 §12.5.3 lets a server disregard Accept-Encoding rather than fail,
 * and a readable answer serves the caller better than a 406 (koa-compress would throw one
 * mid-response, which surfaced as a 500).
 */
export function identityWhenNothingAcceptable(): Middleware {
  return async (ctx, next) => {
    if (ctx.get("Accept-Encoding") && ctx.acceptsEncodings(CODINGS) === false) ctx.compress = false;
    await next();
  };
}
