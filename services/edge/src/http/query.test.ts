import { parse } from "node:querystring";
import { rejection } from "../../test/rejection";
import { eventsQuery } from "../routes/events";
import { teamsQuery } from "../routes/catalogue";
import { canonicalQuery, parseQuery, RouteQueries } from "./query";

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
