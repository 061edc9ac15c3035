import { z } from "zod";
import { CursorCodec } from "./cursor";
import { InvalidArgumentError } from "./errors";

const codec = new CursorCodec("events", z.object({ startsAt: z.number().int(), eventID: z.string() }));
const query = { leagueIDs: ["AFL", "NRL"], live: true };

function rejection(run: () => unknown): InvalidArgumentError {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err;
    throw err;
  }
  throw new Error("expected the cursor to be rejected");
}

describe("CursorCodec", () => {
  it("round-trips a position for the same query, whatever the key order", () => {
    const token = codec.encode(query, { startsAt: 1_700_000_000_000, eventID: "AFL_2026-11-21_a_vs_b" });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode(token, { live: true, leagueIDs: ["AFL", "NRL"] })).toEqual({
      startsAt: 1_700_000_000_000,
      eventID: "AFL_2026-11-21_a_vs_b",
    });
  });

  it("rejects a cursor replayed with other filters, naming the cursor parameter", () => {
    const token = codec.encode(query, { startsAt: 1, eventID: "x" });
    const err = rejection(() => codec.decode(token, { ...query, live: false }));
    expect(err.parameter).toBe("cursor");
    expect(err.message).toMatch(/different query parameters/);
  });

  it("rejects a cursor issued by another route", () => {
    const other = new CursorCodec("ticks", z.object({ startsAt: z.number(), eventID: z.string() }));
    const token = other.encode(query, { startsAt: 1, eventID: "x" });
    expect(rejection(() => codec.decode(token, query)).message).toMatch(/this route/);
  });

  it("rejects garbage, non-JSON and a position that fails its schema", () => {
    expect(rejection(() => codec.decode("not a cursor!", query)).parameter).toBe("cursor");
    expect(rejection(() => codec.decode(Buffer.from("{oops").toString("base64url"), query)).parameter).toBe("cursor");
    const forged = Buffer.from(JSON.stringify({ v: 1, k: "events", q: "x", p: {} })).toString("base64url");
    expect(rejection(() => codec.decode(forged, query)).parameter).toBe("cursor");
    const token = codec.encode(query, { startsAt: 1, eventID: "x" });
    const payload = JSON.parse(Buffer.from(token, "base64url").toString());
    payload.p.startsAt = "yesterday";
    const tampered = Buffer.from(JSON.stringify(payload)).toString("base64url");
    expect(rejection(() => codec.decode(tampered, query)).message).toMatch(/malformed/);
  });
});
