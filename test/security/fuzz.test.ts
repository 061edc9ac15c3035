// Property-based fuzz run driven by the served OpenAPI document: every route, its parameters
// with valid, malformed and hostile values, bracketed and repeated names. Bounded by
// FUZZ_RUNS (requests; default 150, short enough for `npm test`; set e.g. FUZZ_RUNS=20000 for a long run);
// FUZZ_SEED replays a failed run's seed.
import fc from "fast-check";
import { getV2 } from "../support/e2e";

interface Parameter {
  name: string;
  required?: boolean;
  schema: { type?: string; enum?: string[]; minimum?: number; maximum?: number; format?: string };
}
interface Operation {
  parameters: Parameter[];
  responses: Record<string, unknown>;
  security?: unknown[];
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
/** Values sent besides valid ones; those starting with "%" go raw (invalid escapes, NUL, bad UTF-8). */
const HOSTILE = [
  "",
  " ",
  "1e309",
  "0x10",
  "10.5",
  "-1",
  "NaN",
  "Infinity",
  "9".repeat(40),
  "2026-02-30",
  "2026-11-31T00:00:00Z",
  "2026-11-21 10:00:00",
  "true\u0000",
  "\u0000",
  "%00",
  "%ff%fe",
  "%ED%A0%80",
  "%",
  "%zz",
  '{"$ne":null}',
  "[object Object]",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "AFL,".repeat(300),
  "x".repeat(3000),
  "AFL",
  "sportsbet",
  "points-home-game-ml-home",
  "PLAYER_ID",
];

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates included, as U+FFFD). */
function encoded(text: string): string {
  return [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
}

function validValue(parameter: Parameter): fc.Arbitrary<string> {
  const { schema } = parameter;
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === "boolean") return fc.constantFrom("true", "false");
  if (schema.type === "integer")
    return fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000 }).map(String);
  if (schema.format === "date-time")
    return fc
      .date({ min: new Date("2026-08-01T00:00:00Z"), max: new Date("2027-02-01T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString());
  return fc.constantFrom("AFL", "NRL", "EPL", "sportsbet", "pinnacle", "AUSSIE_RULES", "points-home-game-ml-home");
}

function valueOf(parameter: Parameter): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: validValue(parameter) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  );
}

/** One request: some of the route's parameters, each possibly repeated or sent with a bracketed name. */
function requestOf(path: string, operation: Operation): fc.Arbitrary<{ path: string; query: string; sent: string[] }> {
  const parameters = operation.parameters;
  const one = (parameter: Parameter) =>
    fc.record({
      name: fc.constantFrom(
        parameter.name,
        parameter.name,
        parameter.name,
        `${parameter.name}[$ne]`,
        `${parameter.name}[]`,
      ),
      values: fc.array(valueOf(parameter), { minLength: 1, maxLength: 2 }),
    });
  return (
    parameters.length === 0 ? fc.constant([]) : fc.subarray(parameters).chain((chosen) => fc.tuple(...chosen.map(one)))
  ).map((pairs) => ({
    path,
    sent: pairs.map((pair) => pair.name),
    query: pairs
      .flatMap(({ name, values }) =>
        values.map((value) => `${encoded(name)}=${value.startsWith("%") ? value : encoded(value)}`),
      )
      .join("&"),
  }));
}

describe("fuzz run over the OpenAPI document", () => {
  it(`answers ${RUNS} generated requests in the envelope, within the document, never 5xx, 400s naming a parameter`, async () => {
    const openApi = (await getV2("/openapi.json", { apiKey: null })).body as {
      paths: Record<string, { get: Operation }>;
    };
    const routes = Object.entries(openApi.paths).map(([path, item]) => requestOf(path, item.get));
    await fc.assert(
      fc.asyncProperty(fc.oneof(...routes), async ({ path, query, sent }) => {
        const res = await getV2(`${path}${query ? `?${query}` : ""}`, { tier: "internal" });
        const documented = Object.keys(openApi.paths[path]!.get.responses).map(Number);
        const context = `${path}?${query} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
        if (path === "/stream/events") {
          // Not implemented in v2 (501), a bad parameter (400), or a request line over the edge's bound (431,
          // which every path documents): fast-check's long strings reach it.
          if (res.status !== 501 && res.status !== 400 && !(res.status === 431 && documented.includes(431)))
            throw new Error(context);
          return;
        }
        if (res.status >= 500 || !documented.includes(res.status)) throw new Error(context);
        const body = res.body as { success?: unknown; error?: unknown; message?: unknown; data?: unknown };
        if (typeof body !== "object" || body === null || typeof body.success !== "boolean") throw new Error(context);
        if (JSON.stringify(body).match(/\bat .+\.(js|ts):\d+|Mongo|ECONNREFUSED|TypeError|stack/))
          throw new Error(context);
        if (res.status === 200) {
          if (body.success !== true || body.data === undefined) throw new Error(context);
          return;
        }
        if (body.success !== false || typeof body.error !== "string") throw new Error(context);
        if (res.status === 400) {
          const named = String(body.message ?? "").split(":")[0] ?? "";
          const known = openApi.paths[path]!.get.parameters.map((p) => p.name);
          // The 400 names a parameter of the request (a bracketed one under its own name) or the route's.
          if (!sent.includes(named) && !known.includes(named)) throw new Error(`unnamed parameter: ${context}`);
        }
      }),
      {
        numRuns: RUNS,
        interruptAfterTimeLimit: 240_000,
        // A failure prints its seed: FUZZ_SEED=<seed> replays the same generated requests.
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
      },
    );
  }, 300_000);
});
