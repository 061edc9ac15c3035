import { asBuffer, PACKED_END, packJsonPiece, unpackJsonPiece } from "@odds/platform";
import { jsonStringEnd } from "./odds-layout";
import type { EventJsonParts } from "./render";

/**
 * Uncompressed bytes of sides per piece: a narrow read inflates a few such pieces, not the event.
 * With level 3 the pieces of the benchmark's priced events (491 KB of JSON on average) pack to
 * 0.98x the whole rendering at level 1, as kept before; 16 KB pieces at level 1 packed to 1.4x.
 */
const PIECE_BYTES = 64 * 1024;
/**
 * Each piece is packed alone (`packJsonPiece`, no dictionary): it joins the others in one stream, and inflates
 * alone.
 */
const PIECE_LEVEL = 3;
/**
 * oddIDs are kept joined by this, one string per event rather than one per side; an oddID is made
 * of `[a-z0-9_]` tokens, player entities and hyphens (`formatOddID`), never a control character.
 */
const ODD_ID_SEPARATOR = "\n";

/** Where the sides of a rendering are: what a read that keeps only some sides needs of it. */
export interface RenderingSides {
  /** Every side's oddID, in the event's order. */
  oddIDs(): string[];
  /**
   * The value bytes (`{"oddID":...}`) of the sides at these indices of `oddIDs()`, in the order given; the caller's
   * to change (restamp in place). By index: a read finds its sides in the order it already holds, and nothing maps
   * every oddID of the event to find a few.
   */
  sideValues(sides: readonly number[]): Buffer[];
  /** The event's JSON with `odds` empty. */
  withoutOdds(): Buffer;
}

/** A packed rendering as plain data: what crosses between threads (a structured clone), made whole by `fromData`. */
export interface PackedRenderingData {
  packed: Uint8Array;
  pieceEnds: Uint32Array;
  firstSide: Uint32Array;
  memberBytes: Uint32Array;
  joinedOddIDs: string;
}

/** The pieces of a rendering, uncompressed, and which sides each piece holds. */
interface PiecePlan {
  pieces: Buffer[];
  /** Index of the first side of each piece; the head piece holds none. */
  firstSide: number[];
}

/**
 * An event's rendering packed in pieces: the bytes before its sides (ending in `"odds":{`), runs
 * of sides of about PIECE_BYTES, and the bytes after them, each raw-deflated on its own and joined
 * into one raw-deflate stream that unpacks whole as before (`unpackJson`). Each piece also
 * inflates alone, and where each side sits in its piece is known from its member's length, so a
 * read that keeps a few sides (a narrow query's oddIDs) inflates those pieces only, not a fully
 * priced event's 300-800 KB, and scans nothing for the sides' boundaries.
 */
export class PackedRendering implements RenderingSides {
  private constructor(
    /** The whole rendering, one raw-deflate stream. */
    readonly packed: Buffer,
    /** Where each piece ends in `packed` (it starts where the one before ends). */
    private readonly pieceEnds: Uint32Array,
    /** Index of the first side of each piece (pieces after the head; the tail holds none). */
    private readonly firstSide: Uint32Array,
    /** Each side's member length in bytes (`"<oddID>":{...}`), in order. */
    private readonly memberBytes: Uint32Array,
    /** Every side's oddID, in order, joined by ODD_ID_SEPARATOR. */
    private readonly joinedOddIDs: string,
  ) {}

  /**
   * Packs on this thread. An apply packs in its preparation's worker (`event-preparation.ts`): one
   * thread-pool hop per piece cost the event loop about as much as packing here, and the process
   * twice the CPU.
   */
  static pack(parts: EventJsonParts): PackedRendering {
    const plan = planPieces(parts);
    return PackedRendering.of(
      parts,
      plan,
      plan.pieces.map((piece) => packJsonPiece(piece, { level: PIECE_LEVEL })),
    );
  }

  /** A rendering from its `data()`, as another thread sent it. */
  static fromData(data: PackedRenderingData): PackedRendering {
    return new PackedRendering(
      asBuffer(data.packed),
      data.pieceEnds,
      data.firstSide,
      data.memberBytes,
      data.joinedOddIDs,
    );
  }

  data(): PackedRenderingData {
    const { packed, pieceEnds, firstSide, memberBytes, joinedOddIDs } = this;
    return { packed, pieceEnds, firstSide, memberBytes, joinedOddIDs };
  }

  private static of(parts: EventJsonParts, plan: PiecePlan, packedPieces: Buffer[]): PackedRendering {
    const pieceEnds = new Uint32Array(packedPieces.length);
    let end = 0;
    packedPieces.forEach((piece, index) => (pieceEnds[index] = end += piece.length));
    return new PackedRendering(
      Buffer.concat([...packedPieces, PACKED_END]),
      pieceEnds,
      Uint32Array.from(plan.firstSide),
      Uint32Array.from(parts.sides, (side) => side.member.length),
      parts.sides.map((side) => side.oddID).join(ODD_ID_SEPARATOR),
    );
  }

  oddIDs(): string[] {
    return this.memberBytes.length === 0 ? [] : this.joinedOddIDs.split(ODD_ID_SEPARATOR);
  }

  /** Each piece holding a named side is inflated once. */
  sideValues(sides: readonly number[]): Buffer[] {
    const values = new Array<Buffer>(sides.length);
    // Positions in `sides` of the sides each piece holds.
    const byPiece = new Map<number, number[]>();
    sides.forEach((side, at) => {
      if (!(side >= 0 && side < this.memberBytes.length)) throw new RangeError(`no side ${side} in this rendering`);
      const piece = this.pieceOf(side);
      const held = byPiece.get(piece);
      if (held) held.push(at);
      else byPiece.set(piece, [at]);
    });
    for (const [piece, held] of byPiece) {
      const bytes = this.inflate(piece);
      for (const at of held) {
        const side = sides[at] as number;
        const memberStart = this.memberStart(piece, side);
        // The member is `"<oddID>":<value>`: its key, a JSON string as JSON.stringify writes it, then a colon.
        const keyEnd = jsonStringEnd(bytes, memberStart);
        if (keyEnd === undefined) throw new Error(`side ${side} of this rendering has no key`);
        values[at] = bytes.subarray(keyEnd + 1, memberStart + (this.memberBytes[side] as number));
      }
    }
    return values;
  }

  /** Its head and tail pieces. */
  withoutOdds(): Buffer {
    return Buffer.concat([this.inflate(0), this.inflate(this.pieceEnds.length - 1)]);
  }

  private inflate(piece: number): Buffer {
    const start = piece === 0 ? 0 : (this.pieceEnds[piece - 1] as number);
    return unpackJsonPiece(this.packed.subarray(start, this.pieceEnds[piece]));
  }

  /** The piece (1 for the first run of sides) holding a side. */
  private pieceOf(side: number): number {
    // The last run whose first side is at or before it; firstSide is ascending.
    let low = 0;
    let high = this.firstSide.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.firstSide[mid] as number) <= side) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }

  /** Where a side's member starts in its inflated piece: after the members before it, each followed by a comma. */
  private memberStart(piece: number, side: number): number {
    const first = this.firstSide[piece - 1] as number;
    // Every run but the first starts with the comma after the previous run's last member.
    let at = first === 0 ? 0 : 1;
    for (let earlier = first; earlier < side; earlier++) at += (this.memberBytes[earlier] as number) + 1;
    return at;
  }
}

/**
 * The rendering's bytes cut into pieces that join into exactly `joinedJson(parts)`: the head,
 * runs of sides (members joined by commas; a run after the first starts with the comma that
 * separates it from the run before), the tail.
 */
function planPieces(parts: EventJsonParts): PiecePlan {
  const pieces: Buffer[] = [parts.head];
  const firstSide: number[] = [];
  let run: Buffer[] = [];
  let runBytes = 0;
  const close = () => {
    pieces.push(Buffer.concat(run));
    run = [];
    runBytes = 0;
  };
  parts.sides.forEach(({ member }, index) => {
    if (run.length === 0) firstSide.push(index);
    if (index > 0) run.push(COMMA);
    run.push(member);
    runBytes += member.length;
    if (runBytes >= PIECE_BYTES) close();
  });
  if (run.length > 0) close();
  pieces.push(parts.tail);
  return { pieces, firstSide };
}

const COMMA = Buffer.from(",");
