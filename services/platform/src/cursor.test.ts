import { z } from "zod";
import { CursorCodec } from "./cursor";
import { CursorSeal, type CursorBinding } from "./cursor-seal";
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

const secret = "s".repeat(32);
const seal = new CursorSeal(secret);
const binding: CursorBinding = { route: "/v2/events/", scope: '{"tier":"lite"}', query: { leagueID: ["AFL"] } };

describe("CursorSeal", () => {
  it("opens what it sealed for the same route, plan scope and query, whatever the key order", () => {
    const token = seal.seal("position-1", binding);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(seal.open(token, { ...binding, query: { leagueID: ["AFL"] } })).toBe("position-1");
  });

  it("rejects a forged position, a truncated token and a re-signed token, naming cursor", () => {
    const token = seal.seal("position-1", binding);
    const [body] = token.split(".") as [string];
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    const forgedBody = Buffer.from(JSON.stringify({ ...claims, c: "position-999" })).toString("base64url");
    const forged = `${forgedBody}.${token.split(".")[1]}`;
    const byOtherSecret = new CursorSeal("o".repeat(32)).seal("position-1", binding);
    for (const bad of [
      forged,
      token.slice(0, -3),
      token.slice(0, body.length),
      `${token}x`,
      byOtherSecret,
      "",
      "a.b",
    ]) {
      const err = rejection(() => seal.open(bad, binding));
      expect(err.parameter).toBe("cursor");
      expect(err.message).toMatch(/^cursor: is not a cursor returned by this API/);
    }
  });

  it("rejects a cursor from another route, another plan scope or other filters, saying which", () => {
    const token = seal.seal("position-1", binding);
    expect(rejection(() => seal.open(token, { ...binding, route: "/v2/teams/" })).message).toMatch(/another route/);
    expect(rejection(() => seal.open(token, { ...binding, scope: '{"tier":"base"}' })).message).toMatch(/another plan/);
    expect(rejection(() => seal.open(token, { ...binding, query: { leagueID: ["NRL"] } })).message).toMatch(
      /different query parameters/,
    );
  });

  it("opens cursors sealed with a previous secret during a rotation, and seals with the current one", () => {
    const old = new CursorSeal("p".repeat(32)).seal("position-1", binding);
    const rotated = new CursorSeal(secret, ["p".repeat(32)]);
    expect(rotated.open(old, binding)).toBe("position-1");
    expect(seal.open(rotated.seal("position-2", binding), binding)).toBe("position-2");
  });

  it("refuses a secret short enough to guess", () => {
    expect(() => new CursorSeal("short")).toThrow(/at least 32 characters/);
    expect(() => new CursorSeal(secret, ["short"])).toThrow(/at least 32 characters/);
  });
});
