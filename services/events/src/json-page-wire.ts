import type { common } from "@odds/proto";

/**
 * Serialises a JsonPage in one copy: the rendered items are already Buffers, so they are framed
 * (field tag + length) and concatenated once, instead of being copied into a protobuf writer and
 * copied again into the outgoing Buffer. Wire-compatible with `common.JsonPage.decode`.
 */
export function encodeJsonPage(page: common.JsonPage): Buffer {
  const parts: Uint8Array[] = [];
  for (const item of page.items) parts.push(lengthDelimitedHeader(1, item.length), item);
  for (const [field, text] of [
    [2, page.nextCursor],
    [3, page.notice],
    [5, page.tag],
  ] as const) {
    if (!text) continue;
    const bytes = Buffer.from(text, "utf8");
    parts.push(lengthDelimitedHeader(field, bytes.length), bytes);
  }
  if (page.objects !== undefined && page.objects > 0) parts.push(varintField(4, page.objects));
  if (page.unchanged) parts.push(varintField(6, 1));
  return Buffer.concat(parts);
}

function varintField(field: number, value: number): Buffer {
  return Buffer.concat([Buffer.from([field << 3]), varint(value)]);
}

function lengthDelimitedHeader(field: number, length: number): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2]), varint(length)]);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
