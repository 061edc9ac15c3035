// A real local HTTP server in the shape of SportsGameOdds v2 and The Odds API v4, serving the
// recorded fixtures next to this file (written from their public documentation and SDK types).
// Times in fixtures are written relative to the server's clock ("@now+2h"), so kickoffs stay in
// the future. Faults (429 with Retry-After, 500, 404) are injected per path for the tests.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

export const FIXTURE_KEYS = { sportsgameodds: "sgo-fixture-key", theOddsApi: "toa-fixture-key" };

export interface Fault {
  /** Matched against the request path and query. */
  match: RegExp;
  status: number;
  retryAfterSeconds?: number;
  /** How many matching requests fail (then the fixture is served again). */
  times: number;
}

export interface FixtureRequest {
  path: string;
  query: URLSearchParams;
  status: number;
}

interface SgoLeagueFixture {
  pages: unknown[][];
  /** The last page's nextCursor points at a page that answers 404 (the API's known behaviour). */
  lastCursor404: boolean;
}

interface ToaFixture {
  sports: Record<
    string,
    { events: Array<Record<string, unknown>>; eventOdds: Record<string, Record<string, unknown>> }
  >;
}

const FIXTURE_DIR = join(__dirname, "fixtures");

function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, name), "utf8")) as T;
}

/** Replaces "@now+2h"-style strings with ISO instants relative to `nowMs`. */
export function rebase<T>(value: T, nowMs: number): T {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) => {
    if (typeof v !== "string") return v;
    const m = /^@now([+-]\d+)([mhd])$/.exec(v);
    if (!m) return v;
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "m" | "h" | "d"];
    return new Date(nowMs + Number(m[1]) * unit).toISOString().replace(/\.\d{3}Z$/, "Z");
  }) as T;
}

export class UpstreamFixtureServer {
  readonly requests: FixtureRequest[] = [];
  private readonly faults: Fault[] = [];
  private server: Server | undefined;
  private readonly sgo: Record<string, SgoLeagueFixture>;
  private readonly toa: ToaFixture;
  /** The Odds API plan: credits left and used (as its headers report them). */
  creditsRemaining: number;
  creditsUsed = 0;

  constructor(options: { nowMs?: number; credits?: number } = {}) {
    const nowMs = options.nowMs ?? Date.now();
    this.sgo = rebase(loadFixture<Record<string, SgoLeagueFixture>>("sportsgameodds-v2-events.json"), nowMs);
    this.toa = rebase(loadFixture<ToaFixture>("the-odds-api-v4-au.json"), nowMs);
    this.creditsRemaining = options.credits ?? 100_000;
  }

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error("fixture server not started");
    return `http://127.0.0.1:${address.port}`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(port, "127.0.0.1", resolve));
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  requestsTo(pattern: RegExp): FixtureRequest[] {
    return this.requests.filter((r) => pattern.test(`${r.path}?${r.query.toString()}`));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://fixture");
    const record = (status: number) => this.requests.push({ path: url.pathname, query: url.searchParams, status });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record(status);
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    const fault = this.faults.find(
      (f) => f.times > 0 && f.match.test(`${url.pathname}?${url.searchParams.toString()}`),
    );
    if (fault) {
      fault.times -= 1;
      const headers: Record<string, string> =
        fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) };
      return send(fault.status, { success: false, error: `injected ${fault.status}` }, headers);
    }
    if (url.pathname === "/v2/events/" || url.pathname === "/v2/events") return this.sgoEvents(req, url, send);
    const sport = /^\/v4\/sports\/([^/]+)\/odds\/?$/.exec(url.pathname);
    if (sport?.[1]) return this.toaOdds(url, sport[1], undefined, send);
    const event = /^\/v4\/sports\/([^/]+)\/events\/([^/]+)\/odds\/?$/.exec(url.pathname);
    if (event?.[1] && event[2]) return this.toaOdds(url, event[1], decodeURIComponent(event[2]), send);
    return send(404, { message: "not found" });
  }

  private sgoEvents(req: IncomingMessage, url: URL, send: (s: number, b: unknown) => void): void {
    if (req.headers["x-api-key"] !== FIXTURE_KEYS.sportsgameodds)
      return send(401, { success: false, error: "bad key" });
    const league = this.sgo[url.searchParams.get("leagueID") ?? ""];
    // Like the API: a league with no events answers 404, as does a cursor with nothing behind it.
    if (!league) return send(404, { success: false, error: "No events found" });
    const cursor = url.searchParams.get("cursor");
    const index = cursor ? Number(cursor.replace("page-", "")) : 0;
    const page = league.pages[index];
    if (!page) return send(404, { success: false, error: "No events found" });
    const last = index === league.pages.length - 1;
    const nextCursor = !last || league.lastCursor404 ? `page-${index + 1}` : undefined;
    return send(200, { success: true, data: page, ...(nextCursor ? { nextCursor } : {}) });
  }

  private toaOdds(
    url: URL,
    sportKey: string,
    eventID: string | undefined,
    send: (s: number, b: unknown, h?: Record<string, string>) => void,
  ): void {
    if (url.searchParams.get("apiKey") !== FIXTURE_KEYS.theOddsApi) return send(401, { message: "bad key" });
    const sport = this.toa.sports[sportKey];
    if (!sport) return send(404, { message: "Unknown sport" });
    const markets = new Set((url.searchParams.get("markets") ?? "h2h").split(","));
    const regions = (url.searchParams.get("regions") ?? "au").split(",").length;
    const books = new Set((url.searchParams.get("bookmakers") ?? "").split(",").filter(Boolean));
    const served = new Set<string>();
    const shape = (event: Record<string, unknown>) => ({
      ...event,
      bookmakers: (event.bookmakers as Array<{ key: string; markets: Array<{ key: string }> }>)
        .filter((b) => books.size === 0 || books.has(b.key))
        .map((b) => ({ ...b, markets: b.markets.filter((m) => markets.has(m.key) && served.add(m.key)) }))
        .filter((b) => b.markets.length > 0),
    });
    let body: unknown;
    if (eventID === undefined) {
      body = sport.events.map(shape);
    } else {
      const event = sport.eventOdds[eventID] ?? sport.events.find((e) => e.id === eventID);
      if (!event) return send(404, { message: "Event not found" });
      body = shape(event);
    }
    // Cost as documented: markets x regions (per-event: the markets that came back).
    const cost = (eventID === undefined ? markets.size : served.size) * regions;
    const quota = {
      "x-requests-remaining": String(this.creditsRemaining),
      "x-requests-used": String(this.creditsUsed),
    };
    if (cost > this.creditsRemaining) return send(429, { message: "Usage quota has been reached" }, quota);
    this.creditsRemaining -= cost;
    this.creditsUsed += cost;
    return send(200, body, {
      "x-requests-remaining": String(this.creditsRemaining),
      "x-requests-used": String(this.creditsUsed),
      "x-requests-last": String(cost),
    });
  }
}
