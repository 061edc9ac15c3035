import { frameItems } from "@odds/platform";
import type { Context } from "koa";
import type { RoutePage } from "./route";

const OPEN = Buffer.from('{"success":true,"data":[');

/**
 * Writes a success envelope. Items are contract objects already rendered as JSON by the
 * services, so they are spliced into the body as bytes, never parsed and re-encoded.
 */
export function writePage(ctx: Context, page: RoutePage): void {
  ctx.status = 200;
  ctx.type = "application/json";
  ctx.body = renderPage(page);
  // Entities for the rate limiter: one per object in data.
  ctx.state.entities = page.items.length;
}

/** The envelope's bytes for a page (framed where a large page was received: see `frameItems`). */
export function renderPage(page: RoutePage): Buffer {
  return frameItems(page.items, ...pageEnvelope(page));
}

/** What a page's envelope writes before its items and after them. */
export function pageEnvelope(page: RoutePage): [head: Buffer, tail: Buffer] {
  const tail: Record<string, unknown> = { nextCursor: page.nextCursor };
  if (page.notice) tail.notice = page.notice;
  return [OPEN, Buffer.from(`],${JSON.stringify(tail).slice(1)}`)];
}

/** A single object route (health) uses the same envelope with its object as data. */
export function writeObject(ctx: Context, data: unknown): void {
  ctx.status = 200;
  ctx.body = { success: true, data, nextCursor: null };
}

export function writeFailure(ctx: Context, status: number, error: string, message?: string): void {
  ctx.status = status;
  ctx.body = { success: false, error, ...(message ? { message } : {}) };
}
