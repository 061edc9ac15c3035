import { parse } from "node:querystring";
import fc from "fast-check";
import { rejection } from "../../test/rejection";
import { eventsQuery } from "../routes/events";
import { teamsQuery } from "../routes/catalogue";
import { canonicalQuery, parseQuery, queryParameter, RouteQueries } from "./query";

/** A RouteQueries over `schema` and the number of times it parsed a query string. */
function counted<S extends ConstructorParameters<typeof RouteQueries>[0]>(schema: S, lenient = false) {
  const queries = new RouteQueries(schema, lenient);
  const reads: string[] = [];
  const of = (querystring: string) =>
    queries.of(querystring, () => {
      reads.push(querystring);
      return parse(querystring);
    });
  return { of, reads };
}

const fiftyIDs = Array.from({ length: 50 }, (_, i) => `EVENT_${String(i).padStart(4, "0")}_AFL`).join(",");

describe("RouteQueries", () => {
  it("parses a query string once and gives every request with it the same validated parameters", () => {
    const { of, reads } = counted(eventsQuery);
    const first = of(`eventIDs=${fiftyIDs}&oddID=a,b`);
    const again = of(`eventIDs=${fiftyIDs}&oddID=a,b`);
    expect(again).toBe(first);
    expect(reads).toHaveLength(1);
    expect(first.params).toEqual(parseQuery(eventsQuery, parse(`eventIDs=${fiftyIDs}&oddID=a,b`)));
    expect(first.params.eventIDs).toHaveLength(50);
    expect(first.params.limit).toBe(10);
  });

  it("freezes the shared parameters, so no request can change another's", () => {
    const { params } = counted(eventsQuery).of("leagueID=AFL,NRL&limit=5");
    expect(() => params.leagueID?.push("BBL")).toThrow(TypeError);
    expect(() => Object.assign(params, { limit: 100 })).toThrow(TypeError);
    expect(params).toEqual({ leagueID: ["AFL", "NRL"], limit: 5 });
  });

  it("gives the canonical form of the parameters, the same whatever their order and spelling", () => {
    const { of } = counted(eventsQuery);
    const one = of("leagueID=AFL&oddID=x&limit=5");
    const other = of("limit=5&oddID=x&leagueID=AFL&unknown=1");
    expect(other).not.toBe(one);
    expect(one.canonical).toBe(canonicalQuery(one.params));
    expect(other.canonical).toBe(one.canonical);
    expect(of("leagueID=NRL&oddID=x&limit=5").canonical).not.toBe(one.canonical);
  });

  it("gives the query string sorted by parameter name, repeats in their order, as URLSearchParams writes it", () => {
    const { of, reads } = counted(eventsQuery);
    const one = of("oddID=b&leagueID=AFL&oddID=a&limit=5");
    expect(one.sorted).toBe("leagueID=AFL&limit=5&oddID=b&oddID=a");
    expect(of("limit=5&oddID=b&oddID=a&leagueID=AFL").sorted).toBe(one.sorted);
    expect(of("leagueID=A%46L&limit=5&oddID=b&oddID=a").sorted).toBe(one.sorted);
    expect(of("leagueID=AFL&limit=5&oddID=a&oddID=b").sorted).not.toBe(one.sorted);
    expect(of("").sorted).toBe("");
    expect(reads).toHaveLength(5);
  });

  it("keeps a route's queries per path when the route reads parameters from its path", () => {
    const queries = new RouteQueries(teamsQuery);
    const read = (leagueID: string) => () => ({ leagueID, limit: "5" });
    const afl = queries.of("limit=5", read("AFL"), "/teams/AFL");
    const nrl = queries.of("limit=5", read("NRL"), "/teams/NRL");
    expect([afl.params.leagueID, nrl.params.leagueID]).toEqual([["AFL"], ["NRL"]]);
    expect(queries.of("limit=5", read("BBL"), "/teams/AFL")).toBe(afl);
    expect(afl.sorted).toBe("limit=5");
  });

  it("never keeps a query that fails: each request with it is parsed and refused again, naming the parameter", () => {
    const { of, reads } = counted(eventsQuery);
    expect(rejection(() => of("limit=500")).detail).toMatch(/^limit: at most 100/);
    expect(rejection(() => of("limit=500")).detail).toMatch(/^limit: at most 100/);
    expect(rejection(() => of("leagueID[$ne]=AFL")).detail).toMatch(/^leagueID\[\$ne\]: bracketed/);
    expect(reads).toEqual(["limit=500", "limit=500", "leagueID[$ne]=AFL"]);
  });

  it("keeps a lenient route's parameters as that route reads them: malformed ones dropped", () => {
    const { of, reads } = counted(teamsQuery, true);
    const parsed = of("limit=abc&leagueID=AFL");
    expect(of("limit=abc&leagueID=AFL")).toBe(parsed);
    expect(reads).toHaveLength(1);
    expect(parsed.params).toEqual({ leagueID: ["AFL"], limit: teamsQuery.parse({}).limit });
  });

  it("is bounded: a scan of many long query strings parses the first one again", () => {
    const { of, reads } = counted(eventsQuery);
    const first = `eventIDs=${fiftyIDs}&leagueID=L0`;
    of(first);
    for (let i = 1; i <= 200; i++) of(`eventIDs=${fiftyIDs}&leagueID=L${i}`);
    of(first);
    expect(reads.filter((read) => read === first)).toHaveLength(2);
    const recent = `eventIDs=${fiftyIDs}&leagueID=L200`;
    of(recent);
    expect(reads.filter((read) => read === recent)).toHaveLength(1);
  });
});

describe("queryParameter", () => {
  it("reads a parameter as URLSearchParams does, however its name is spelled", () => {
    const queries = [
      "apiKey=k1",
      "leagueID=AFL&apiKey=k1&apiKey=k2",
      "leagueID=AFL&%61piKey=k3",
      "api%4Bey=k4&limit=5",
      "apiKey",
      "apiKey=",
      "apikey=lower&APIKEY=upper",
      "leagueID=apiKey",
      "api+Key=spaced&xapiKey=prefixed",
      "eventIDs=" + fiftyIDs,
      "",
    ];
    for (const query of queries) {
      expect([query, queryParameter(query, "apiKey")]).toEqual([query, new URLSearchParams(query).get("apiKey")]);
    }
  });

  it("agrees with URLSearchParams on queries naming it with any of its characters escaped, or almost naming it", () => {
    /** A name with each character as itself or percent-escaped (either case), a space also as `+`. */
    const spelled = (name: string) =>
      fc.tuple(...[...name].map((char) => fc.constantFrom(...spellings(char)))).map((chars) => chars.join(""));
    const parameter = fc
      .tuple(fc.oneof(...["apiKey", "apikey", "api Key", "apiKey ", "leagueID"].map(spelled)), fc.string())
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
    const query = fc.array(parameter, { minLength: 1, maxLength: 3 }).map((parameters) => parameters.join("&"));
    fc.assert(
      fc.property(query, (raw) => {
        expect([raw, queryParameter(raw, "apiKey")]).toEqual([raw, new URLSearchParams(raw).get("apiKey")]);
      }),
      { numRuns: 500 },
    );
    // The queries do name it through escapes alone, which the check must not miss.
    expect(fc.sample(query, { numRuns: 500, seed: 16 }).filter(namesOnlyEscaped).length).toBeGreaterThan(50);
  });
});

/** How a query string may write one character of a parameter's name. */
function spellings(char: string): string[] {
  const hex = char.charCodeAt(0).toString(16).padStart(2, "0");
  return [char, `%${hex}`, `%${hex.toUpperCase()}`, ...(char === " " ? ["+"] : [])];
}

/** A query whose `apiKey` parameter is never written plainly: found only by decoding escapes. */
function namesOnlyEscaped(query: string): boolean {
  return new URLSearchParams(query).has("apiKey") && !query.includes("apiKey");
}
