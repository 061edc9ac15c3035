// Bounded soak on the running stack (real processes, ingest cycling every 5 s): mixed keys over the
// read routes for SOAK_SECONDS (300 by default). Zero 5xx; a lite key bursting past its plan gets its
// 429s exactly where its fixed windows say, with the right Retry-After; keys under their limits are
// never refused; every service's resident memory stays flat after warm-up.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { nodeFlagsFor, REPO_ROOT, type StackPorts } from "@odds/local";
import { DEFAULT_PLANS_FILE } from "@odds/usage/dist/config";
import { PlanBook, type RateWindow, type Tier } from "@odds/usage/dist/plans";
import { e2eStack } from "../support/e2e";
import { percentile } from "../support/percentile";

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SERVICES = ["edge", "events", "history", "catalogue", "usage", "ingest"] as const;
/** The fixed UTC windows of the plans' request limits, by length in ms (the month's is longer than any soak). */
const WINDOW_MS: Partial<Record<RateWindow, number>> = {
  "per-second": 1_000,
  "per-minute": 60_000,
  "per-hour": 3_600_000,
  "per-day": 86_400_000,
};

/** The plans file the stack runs with (the usage service's default). */
const PLANS = PlanBook.fromFile(DEFAULT_PLANS_FILE);

/** A tier's requests per window, as its plan sets them (windows it does not limit left out). */
function planRequests(tier: Tier): Map<RateWindow, number> {
  const { limits } = PLANS.planFor(tier);
  return new Map(limits.flatMap(({ window, maxRequests }) => (maxRequests === null ? [] : [[window, maxRequests]])));
}

/** The lite plan: requests per fixed UTC second, minute and hour. */
const LITE_REQUESTS = planRequests("lite");
const LITE = {
  second: LITE_REQUESTS.get("per-second")!,
  minute: LITE_REQUESTS.get("per-minute")!,
  hour: LITE_REQUESTS.get("per-hour")!,
};
const BURST = 8;
/** The base plan: requests per fixed UTC window, its length in ms first. */
const BASE_WINDOWS = [...planRequests("base")].flatMap(([window, max]) => {
  const windowMs = WINDOW_MS[window];
  return windowMs === undefined ? [] : [[windowMs, max] as const];
});
/**
 * The base key's pause after each answer: 125 ms (about 8 requests a second), or longer where a run of `seconds` would
 * otherwise spend nine tenths of one of its plan's windows (an hour-long soak at 8 a second spent base's 20,000 an hour
 * after 42 minutes): a fixed window holds what the run sends in the shorter of the two.
 */
function basePauseMs(seconds: number): number {
  return Math.max(125, ...BASE_WINDOWS.map(([windowMs, max]) => Math.min(windowMs, seconds * 1000) / (0.9 * max)));
}
/** V8's own largest semi-space on 64-bit, in MB: a young generation of two, 32 MB. */
const V8_SEMI_SPACE_MB = 16;
/**
 * Caches that fill up to their bound as each feed version's entries age out only by LRU, in MB: the edge's answers
 * (ANSWER_CACHE_MAX_BYTES, 64 MiB by default) and the events service's served bytes (`SERVED_BYTES_MAX`, 48 MiB; its
 * Buffers went from 52 to 82 MB over a soak's first minutes, then held).
 */
const CACHE_BOUND_MB: Partial<Record<(typeof SERVICES)[number], number>> = { edge: 64, events: 48 };
/**
 * Growth a service may show after warm-up besides 15 % + 24 MB, from parts bounded in size but not fixed: its caches
 * (`CACHE_BOUND_MB`), and the young generation of a service run with larger semi-spaces (SERVICE_NODE_FLAGS: history's
 * 32 MB), which V8 resizes as the allocation rate moves, between a few MB and two such semi-spaces, resident while in
 * use (history's swung between 8 and 64 MB in a soak, its RSS 133-188 MB with it): 15 % + 24 MB covers that only at
 * V8's own size.
 */
function boundedGrowthMb(service: (typeof SERVICES)[number]): number {
  const semiSpace = nodeFlagsFor(service)
    .map((flag) => /^--max-semi-space-size=(\d+)$/.exec(flag)?.[1])
    .find((mb) => mb !== undefined);
  const youngGeneration = semiSpace === undefined ? 0 : 2 * Math.max(0, Number(semiSpace) - V8_SEMI_SPACE_MB);
  return (CACHE_BOUND_MB[service] ?? 0) + youngGeneration;
}

interface Answer {
  key: "lite" | "base" | "internal";
  path: string;
  startMs: number;
  endMs: number;
  status: number;
  retryAfter: string | null;
  /** The answer carries rate-limit headers: the limiter counted it (it fails open, unheaded, when Redis is too slow). */
  enforced: boolean;
  /** Kept for failures only (5xx and 429 are checked); a success's body is read and dropped. */
  body: string;
}

async function createKey(tier: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(REPO_ROOT, "services", "usage", "dist", "admin", "cli.js"), "keys", "create", "--tier", tier],
    { env: { ...process.env, USAGE_SERVICE_ADDR: `127.0.0.1:${e2eStack().ports.usage}` } },
  );
  return (JSON.parse(stdout) as { apiKey: string }).apiKey;
}

/** The process listening on a loopback port (each service of the stack listens on its own). */
async function pidOn(port: number): Promise<number> {
  const { stdout } = await promisify(execFile)("ss", ["-ltnpH", `sport = :${port}`]);
  const pid = /pid=(\d+)/.exec(stdout)?.[1];
  if (!pid) throw new Error(`no process listens on ${port}`);
  return Number(pid);
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** A percentile of each third of a series: warm-up, middle, last. */
const byThirds = (series: number[], p: number) => {
  const third = Math.floor(series.length / 3);
  const parts = [series.slice(0, third), series.slice(third, 2 * third), series.slice(2 * third)];
  const ascending = (a: number, b: number) => a - b;
  return parts.map((part) => percentile(part.sort(ascending), p)) as [number, number, number];
};
/**
 * A service's floor: the resident memory it comes back down to after its collections (the 10th percentile of
 * the samples). Garbage between collections swings a service's RSS by tens of MB (ingest's from about 145 to
 * 245 MB every minute or so, one cycle's allocations after another), so a third's median depends on where in
 * that swing its samples fell; what a leak raises is the floor.
 */
const FLOOR = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it(
  `${SOAK_SECONDS} s of mixed keys over the read routes: no 5xx, rate limits exact, memory flat`,
  async () => {
    const stack = e2eStack();
    const keys = {
      lite: await createKey("lite"),
      base: await createKey("base"),
      internal: await createKey("internal"),
    };
    const first = await fetch(`${stack.baseUrl}/events/?limit=1`, { headers: { "x-api-key": keys.internal } });
    const eventID = ((await first.json()) as { data: { eventID: string }[] }).data[0]?.eventID ?? "";
    const routes = [
      "/events/?limit=20",
      "/events/?leagueID=AFL,EPL&limit=10",
      `/odds/history/?eventID=${eventID}&limit=50`,
      "/teams/?limit=20",
      "/players/?limit=20",
      "/sports/",
      "/leagues/",
      "/stats/?limit=20",
      "/markets/?limit=20",
      "/account/usage",
    ];
    const answers: Answer[] = [];
    const call = async (key: Answer["key"], path: string): Promise<void> => {
      const startMs = Date.now();
      const res = await fetch(`${stack.baseUrl}${path}`, {
        headers: { "x-api-key": keys[key] },
        signal: AbortSignal.timeout(30_000),
      });
      // Read every body whole, but keep only a failure's: minutes of event pages would not fit in memory.
      const text = await res.text();
      const body = res.status >= 400 ? text : "";
      answers.push({
        key,
        path,
        startMs,
        endMs: Date.now(),
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        enforced: res.headers.has("x-ratelimit-limit"),
        body,
      });
    };

    const ports = stack.ports as StackPorts;
    const pids = Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, await pidOn(ports[s])] as const)));
    const samples: Record<string, number[]> = Object.fromEntries(SERVICES.map((s) => [s, []]));
    const endAt = Date.now() + SOAK_SECONDS * 1000;
    const running = () => Date.now() < endAt;

    const internal = async (offset: number) => {
      for (let i = offset; running(); i += 1) await call("internal", routes[i % routes.length] as string);
    };
    // At most 8 requests a second, under nine tenths of every window of base's plan over the run: never refused.
    const basePause = basePauseMs(SOAK_SECONDS);
    const base = async () => {
      for (let i = 0; running(); i += 1) {
        await call("base", routes[i % routes.length] as string);
        await sleep(basePause);
      }
    };
    // A burst of 8 at 150 ms into every UTC second: 5 pass (per-second), until 60 passed that minute.
    const lite = async () => {
      while (running()) {
        await sleep(1_150 - (Date.now() % 1_000));
        await Promise.all(Array.from({ length: BURST }, () => call("lite", "/events/?limit=2")));
      }
    };
    const memory = async () => {
      while (running()) {
        for (const s of SERVICES) samples[s]!.push(rssMb(pids[s] as number));
        await sleep(2_000);
      }
    };
    await Promise.all([internal(0), internal(3), internal(7), base(), lite(), memory()]);

    // What was measured, for longer runs: answers by key and status, each service's RSS (MB) over thirds: median
    // and floor.
    const summary = {
      seconds: SOAK_SECONDS,
      answers: Object.fromEntries(
        (["lite", "base", "internal"] as const).map((key) => [
          key,
          answers
            .filter((a) => a.key === key)
            .reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {}),
        ]),
      ),
      rssMb: Object.fromEntries(SERVICES.map((s) => [s, byThirds(samples[s]!, 50).map(Math.round)])),
      rssFloorMb: Object.fromEntries(SERVICES.map((s) => [s, byThirds(samples[s]!, FLOOR).map(Math.round)])),
    };
    writeFileSync(join(stack.dataDir, "logs", "soak-summary.json"), JSON.stringify(summary, null, 2));

    // No service restarted (a crash would show as another process on its port).
    for (const s of SERVICES) expect([s, await pidOn(ports[s])]).toEqual([s, pids[s]]);
    // Zero 5xx; every refusal is the contract's 429 in the envelope.
    expect(answers.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.path} ${a.body.slice(0, 200)}`)).toEqual(
      [],
    );
    expect(
      answers.filter((a) => a.key !== "lite" && a.status !== 200).map((a) => `${a.key} ${a.status} ${a.path}`),
    ).toEqual([]);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(JSON.parse(a.body)).toMatchObject({ success: false, error: "Rate limit exceeded" });
    }

    // The lite key, burst by burst, against its fixed windows.
    const served = { minute: new Map<number, number>(), hour: new Map<number, number>() };
    const uncertainMinutes = new Set<number>();
    const straddled = new Set<number>();
    // Hours whose count may differ from what passed in them (an uncounted pass, or up to a burst's 5 counted in the
    // next hour): what they have left is known only while their 1,000 cannot bind within a minute.
    const uncertainHours = new Set<number>();
    const hourKnown = (hour: number, inHour: number) =>
      !uncertainHours.has(hour) || LITE.hour - inHour >= LITE.minute + LITE.second;
    // What each minute's hour had left when the minute began, if it was known: the minute passes at most that.
    const hourLeftAtMinute = new Map<number, number | undefined>();
    const bursts = new Map<number, Answer[]>();
    for (const a of answers.filter((x) => x.key === "lite")) {
      const second = Math.floor(a.startMs / 1000);
      bursts.set(second, [...(bursts.get(second) ?? []), a]);
    }
    let checked = 0;
    for (const [second, burst] of [...bursts.entries()].sort(([a], [b]) => a - b)) {
      const minute = Math.floor(second / 60);
      const hour = Math.floor(second / 3600);
      const inMinute = served.minute.get(minute) ?? 0;
      const inHour = served.hour.get(hour) ?? 0;
      const ok = burst.filter((a) => a.status === 200).length;
      expect(burst.every((a) => a.status === 200 || a.status === 429)).toBe(true);
      const withinSecond = burst.every((a) => Math.floor(a.endMs / 1000) === second);
      if (!hourLeftAtMinute.has(minute)) {
        hourLeftAtMinute.set(minute, hourKnown(hour, inHour) ? LITE.hour - inHour : undefined);
      }
      // A request the limiter could not count in time (Redis slow on a loaded machine) passes uncounted, by design.
      if (burst.some((a) => !a.enforced)) {
        uncertainMinutes.add(minute).add(minute + 1);
        uncertainHours.add(hour);
      }
      if (burst.some((a) => Math.floor(a.endMs / 3_600_000) !== hour)) uncertainHours.add(hour + 1);
      if (burst.some((a) => Math.floor(a.endMs / 60_000) !== minute)) {
        // Some of it may have been counted in the next minute: neither minute's total is known exactly.
        uncertainMinutes.add(minute + 1);
        straddled.add(minute);
      }
      if (withinSecond && !uncertainMinutes.has(minute) && hourKnown(hour, inHour)) {
        const expected = Math.min(LITE.second, Math.max(0, LITE.minute - inMinute), Math.max(0, LITE.hour - inHour));
        expect([new Date(second * 1000).toISOString(), ok]).toEqual([new Date(second * 1000).toISOString(), expected]);
        // Retry-After: whole seconds until the window that refused resets (the longest one exhausted): the hour once
        // its 1,000 are spent, else the minute once its 60 are, else the second.
        const refusingEnd =
          inHour + ok >= LITE.hour
            ? (hour + 1) * 3_600_000
            : inMinute + ok >= LITE.minute
              ? (minute + 1) * 60_000
              : undefined;
        for (const a of burst.filter((x) => x.status === 429)) {
          const range =
            refusingEnd === undefined
              ? [1, 1]
              : [
                  Math.max(1, Math.ceil((refusingEnd - a.endMs) / 1000)),
                  Math.max(1, Math.ceil((refusingEnd - a.startMs) / 1000)),
                ];
          const retryAfter = Number(a.retryAfter);
          expect([new Date(a.startMs).toISOString(), retryAfter >= range[0]! && retryAfter <= range[1]!]).toEqual([
            new Date(a.startMs).toISOString(),
            true,
          ]);
        }
        checked += 1;
      }
      served.minute.set(minute, inMinute + ok);
      served.hour.set(hour, inHour + ok);
    }
    // Nearly every burst fell inside its second; each full minute passed exactly 60, or what its hour had left.
    expect(checked).toBeGreaterThan(bursts.size * 0.8);
    const liteAnswers = answers.filter((a) => a.key === "lite");
    expect(liteAnswers.filter((a) => !a.enforced).length).toBeLessThanOrEqual(liteAnswers.length * 0.05);
    const minutes = [...served.minute.keys()]
      .sort((a, b) => a - b)
      .slice(1, -1)
      .filter((m) => !uncertainMinutes.has(m) && !straddled.has(m));
    for (const m of minutes) {
      const hourLeft = hourLeftAtMinute.get(m);
      if (hourLeft === undefined) continue;
      expect([m, served.minute.get(m)]).toEqual([m, Math.min(LITE.minute, Math.max(0, hourLeft))]);
    }

    // Memory flat: after a warm-up third, the last third's floor within 15 % + 24 MB (+ its bounded growth) of the
    // middle third's.
    for (const s of SERVICES) {
      const [, middle, last] = byThirds(samples[s]!, FLOOR);
      const bound = middle * 1.15 + 24 + boundedGrowthMb(s);
      expect([s, Math.round(last), last <= bound]).toEqual([s, Math.round(last), true]);
    }
    expect(answers.filter((a) => a.key === "internal").length).toBeGreaterThan(SOAK_SECONDS);
  },
  (SOAK_SECONDS + 120) * 1000,
);
