import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "@odds/platform";
import type { WebSocket } from "ws";
import { bearerApiKey, type KeyAccess, type KeyGrant } from "../../access/api-key";
import { planIncludes } from "../../access/plan-features";
import type { UsageRecorder } from "../../access/usage-recorder";
import { RateLimiterUnavailableError, type RateLimiter } from "../../ratelimit/rate-limiter";
import type { CycleListener, OddsFeed, OddsRead } from "./odds-feed";
import {
  STREAM_CLOSE,
  subscription,
  type HeartbeatMessage,
  type SnapshotMessage,
  type StreamClose,
  type Subscription,
} from "./protocol";
import type { StreamLeases } from "./stream-leases";

export interface OddsStreamSettings {
  /** A heartbeat is sent when nothing else was for this long (the contract: at most 15 s). */
  heartbeatMs: number;
  /** A stream is closed with STREAM_CLOSE.lifetime after this long (the contract: 1 hour). */
  lifetimeMs: number;
  /** How long a new connection may take to send its subscription. */
  subscribeTimeoutMs: number;
}

export interface OddsStreamDeps {
  access: KeyAccess;
  limiter: RateLimiter;
  recorder: UsageRecorder;
  leases: StreamLeases;
  feed: OddsFeed;
  logger: Logger;
  settings: OddsStreamSettings;
}

/** Raised while opening a stream: the close it ends with. */
class StreamRefusal extends Error {
  constructor(
    readonly close: StreamClose,
    readonly detail?: string,
  ) {
    super(detail ?? close.reason);
  }
}

/**
 * A refresh refused by a rate-limit window that resets within this long waits for the reset and then
 * sends the newest odds; one refused by a window resetting later closes the stream (4429). Snapshots
 * come when cycles do, not when the client asks: two cycles in one second must not end a stream whose
 * snapshot is larger than the plan's per-second entities.
 */
export const STREAM_WINDOW_WAIT_MAX_MS = 60_000;

/** Close reasons are at most 123 bytes (RFC 6455). */
function reasonOf(close: StreamClose, detail?: string): string {
  const text = detail ? `${close.reason}: ${detail}` : close.reason;
  return Buffer.byteLength(text) <= 123 ? text : `${Buffer.from(text).subarray(0, 120).toString("utf8")}...`;
}

/**
 * One client's odds stream: read only (one subscription message, then nothing), a snapshot at once
 * and after every cycle that changed the followed odds, each counted as an odds request; a
 * heartbeat when nothing was sent for heartbeatMs; closed at its lifetime, when the key is
 * deactivated or out of quota (a window resetting soon is waited for instead), and refused beyond the
 * plan's open streams per key.
 */
export class OddsStream implements CycleListener {
  private readonly id = randomUUID();
  private grant: KeyGrant | undefined;
  private apiKey = "";
  private subscribed: Subscription | undefined;
  private lastSent = "";
  private closed = false;
  /** A slot was asked for: held, or maybe held (an acquire past its deadline may still be applied). */
  private leased = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  /** Refreshes are sent one at a time, in cycle order. */
  private sending: Promise<void> = Promise.resolve();
  /** The newest odds this stream was handed: what its next refresh sends. */
  private latest: OddsRead | undefined;
  /** Set while a refused refresh waits for its rate-limit window to reset. */
  private windowWait: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly headers: IncomingHttpHeaders,
    private readonly deps: OddsStreamDeps,
  ) {}

  get caller() {
    return this.grant!.caller;
  }

  get eventIDs(): readonly string[] {
    return this.subscribed?.event_ids ?? [];
  }

  start(): void {
    const { settings } = this.deps;
    this.later(settings.subscribeTimeoutMs, () => {
      if (!this.subscribed) this.close(STREAM_CLOSE.subscriptionTimeout);
    });
    this.socket.on("message", (data, isBinary) => {
      if (this.subscribed || isBinary) {
        this.close(STREAM_CLOSE.badSubscription, "read only; the subscription is the only message a client sends");
        return;
      }
      this.subscribed = this.parse(String(data));
      if (this.subscribed) void this.open().catch((err: unknown) => this.fail(err));
    });
    this.socket.on("close", () => this.cleanUp());
    this.socket.on("error", () => this.cleanUp());
  }

  /** Closes with a server-side reason (shutdown). */
  close(close: StreamClose, detail?: string): void {
    if (this.closed) return;
    this.socket.close(close.code, reasonOf(close, detail));
    this.cleanUp();
  }

  onCycle(read: OddsRead): void {
    this.latest = read;
    // A refresh waiting for its window sends these odds when the window resets.
    if (!this.windowWait) this.queueRefresh();
  }

  private queueRefresh(): void {
    this.sending = this.sending.then(() => this.refresh()).catch((err: unknown) => this.fail(err));
  }

  private parse(text: string): Subscription | undefined {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.close(STREAM_CLOSE.badSubscription, "not JSON");
      return undefined;
    }
    const parsed = subscription.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    this.close(STREAM_CLOSE.badSubscription, `${issue?.path.join(".") || "message"}: ${issue?.message ?? "invalid"}`);
    return undefined;
  }

  private async open(): Promise<void> {
    const apiKey = this.presentedKey();
    if (!apiKey) throw new StreamRefusal(STREAM_CLOSE.invalidKey);
    const grant = await this.deps.access.resolve(apiKey);
    if (!grant) throw new StreamRefusal(STREAM_CLOSE.invalidKey);
    if (!grant.key.isActive) throw new StreamRefusal(STREAM_CLOSE.keyDeactivated);
    if (!planIncludes(grant.plan, "stream")) {
      throw new StreamRefusal(STREAM_CLOSE.planRequired, `this key's plan is ${grant.plan.tier}`);
    }
    [this.apiKey, this.grant] = [apiKey, grant];

    // Set before the call: cleanUp then releases the slot however the acquire ends (refused, failed at
    // its deadline but applied when Redis resumes, or answered after the client left). The release is
    // sent after the acquire on the same connection, so Redis applies them in that order.
    this.leased = true;
    if (!(await this.deps.leases.acquire(grant.keyID, this.id, grant.plan.maxStreams))) {
      throw new StreamRefusal(STREAM_CLOSE.tooManyStreams, `at most ${grant.plan.maxStreams} per key`);
    }
    if (this.closed) return;

    const read = await this.deps.feed.read(grant.caller, this.eventIDs);
    const missing = this.eventIDs.filter((id) => !read.odds.has(id));
    if (missing.length > 0) throw new StreamRefusal(STREAM_CLOSE.notFound, missing.join(","));
    const leagues = new Set([...read.odds.values()].map((entry) => entry.odds.league_id));
    if (leagues.size > 1) {
      throw new StreamRefusal(STREAM_CLOSE.badSubscription, "event_ids: events of one league only");
    }
    if (this.closed) return;

    this.later(this.deps.settings.lifetimeMs, () => this.close(STREAM_CLOSE.lifetime));
    // Due from now even if the first snapshot waits for a rate-limit window.
    this.scheduleHeartbeat();
    this.latest = read;
    await this.refresh();
    if (!this.closed) this.deps.feed.add(this, read.cycleAtMs);
  }

  /** The key from the upgrade's Authorization header, else from the subscription (browsers). */
  private presentedKey(): string | undefined {
    const fromHeader = bearerApiKey(this.headers, "");
    if (fromHeader) return fromHeader;
    const authorization = this.subscribed?.authorization;
    return authorization ? bearerApiKey({ authorization }, "") : undefined;
  }

  /** Sends a snapshot of the newest odds when they changed, counted as one odds request of the key. */
  private async refresh(): Promise<void> {
    if (this.closed || !this.grant || !this.latest || this.windowWait) return;
    const { odds, cycleAtMs } = this.latest;
    const grant = await this.deps.access.resolve(this.apiKey);
    if (!grant?.key.isActive) return this.close(STREAM_CLOSE.keyDeactivated);
    this.grant = grant;

    const followed = this.eventIDs.flatMap((id) => {
      const entry = odds.get(id);
      return entry ? [entry] : [];
    });
    const json = followed.map((entry) => entry.json).join(",");
    if (json === this.lastSent) return;
    const objects = followed.reduce((sum, entry) => sum + entry.objects, 0);
    if (!(await this.charge(grant, objects))) return;
    this.lastSent = json;
    const message: SnapshotMessage = {
      type: "snapshot",
      cycle_at: new Date(cycleAtMs).toISOString(),
      data: followed.map((entry) => entry.odds),
      meta: { count: followed.length, cost: { objects } },
    };
    this.send(message);
  }

  /**
   * Counts the refresh as an odds request. Refused (429 rules): waits for a window that resets within
   * STREAM_WINDOW_WAIT_MAX_MS, else closes the stream.
   */
  private async charge(grant: KeyGrant, objects: number): Promise<boolean> {
    const { limiter, recorder } = this.deps;
    let admission;
    try {
      admission = await limiter.admit(grant.keyID, grant.quotas);
    } catch (err) {
      if (err instanceof RateLimiterUnavailableError) {
        this.close(STREAM_CLOSE.unavailable);
        return false;
      }
      throw err;
    }
    // A moved revision makes the key's next lookup (at the next refresh or heartbeat) a fresh one.
    if (admission.keyRevision !== undefined) this.deps.access.observeRevision(grant.keyID, admission.keyRevision);
    if (!admission.allowed) {
      const headline = admission.headline;
      const waitMs = headline ? headline.resetAtMs - Date.now() : Infinity;
      if (waitMs <= STREAM_WINDOW_WAIT_MAX_MS) this.waitForWindow(waitMs);
      else this.close(STREAM_CLOSE.quotaExhausted, `${headline?.window ?? "a"} window`);
      return false;
    }
    recorder.record(grant.keyID, objects);
    limiter.recordEntities(grant.keyID, grant.quotas, objects);
    return true;
  }

  /** Refreshes again once the refusing window has reset, with the odds newest by then. */
  private waitForWindow(waitMs: number): void {
    this.windowWait = setTimeout(
      () => {
        this.windowWait = undefined;
        this.queueRefresh();
      },
      Math.max(0, waitMs),
    );
  }

  private send(message: SnapshotMessage | HeartbeatMessage): void {
    if (this.closed) return;
    this.socket.send(JSON.stringify(message));
    this.scheduleHeartbeat();
  }

  private scheduleHeartbeat(): void {
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(
      () => void this.beat().catch((err: unknown) => this.fail(err)),
      this.deps.settings.heartbeatMs,
    );
  }

  /**
   * A heartbeat: the key is checked again (deactivated: closed) and the stream's slot renewed. A
   * renewal that fails (Redis down or hung) is tried again at the next heartbeat: the lease outlives
   * several, and the stream goes on meanwhile.
   */
  private async beat(): Promise<void> {
    const grant = await this.deps.access.resolve(this.apiKey);
    if (!grant?.key.isActive) return this.close(STREAM_CLOSE.keyDeactivated);
    await this.deps.leases.renew(grant.keyID, this.id).catch((err: unknown) => {
      this.deps.logger.debug({ err: { message: (err as Error).message } }, "odds stream lease not renewed");
    });
    this.send({
      type: "heartbeat",
      at: new Date().toISOString(),
      cycle_at: new Date(this.deps.feed.cycleAtMs).toISOString(),
    });
  }

  private later(ms: number, work: () => void): void {
    this.timers.push(setTimeout(work, ms));
  }

  private fail(err: unknown): void {
    if (err instanceof StreamRefusal) return this.close(err.close, err.detail);
    this.deps.logger.warn({ err: { message: (err as Error).message } }, "odds stream failed");
    this.close(STREAM_CLOSE.unavailable);
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.heartbeat) clearTimeout(this.heartbeat);
    if (this.windowWait) clearTimeout(this.windowWait);
    this.deps.feed.remove(this);
    if (this.leased && this.grant) {
      void this.deps.leases.release(this.grant.keyID, this.id).catch(() => undefined);
    }
  }
}
