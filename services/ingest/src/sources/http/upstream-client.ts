// HTTP to a real upstream feed: one JSON GET with a timeout, retries of what is worth retrying
// (network errors, 5xx, 429 after its Retry-After), and requests spaced to the plan's rate.
// Retries, back-off and timeouts are cockatiel's; HTTP is Node's built-in fetch.
import {
  DelegateBackoff,
  handleWhen,
  retry,
  timeout,
  TimeoutStrategy,
  wrap,
  type IRetryBackoffContext,
} from "cockatiel";

export class UpstreamHttpError extends Error {
  override name = "UpstreamHttpError";
  constructor(
    readonly status: number,
    readonly url: string,
    /** From the answer's Retry-After header, when it had one. */
    readonly retryAfterMs?: number,
  ) {
    super(`upstream answered ${status} for ${url}`);
  }
}

export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface UpstreamClientOptions {
  /** Deadline of one attempt. */
  timeoutMs: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** First back-off delay; doubles per attempt up to maxDelayMs (a Retry-After wins when longer). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Requests per minute the plan allows; 0 = no spacing. */
  requestsPerMinute: number;
  /** Called once per attempt that reached the server, with its status (for metrics and quota). */
  onAnswer?: (status: number, headers: Headers) => void;
  /** Called before each retry with its delay (logging). */
  onRetry?: (reason: string, delayMs: number, attempt: number) => void;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function retryable(err: Error): boolean {
  if (err instanceof UpstreamHttpError) return err.status === 429 || err.status >= 500;
  // fetch network failures and our own attempt timeout
  return true;
}

export class UpstreamClient {
  private nextSlotMs = 0;
  private readonly policy;

  constructor(private readonly options: UpstreamClientOptions) {
    const backoff = new DelegateBackoff((context: IRetryBackoffContext<unknown>) => {
      const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (context.attempt - 1));
      const error = "error" in context.result ? context.result.error : undefined;
      const retryAfter = error instanceof UpstreamHttpError ? error.retryAfterMs : undefined;
      return Math.max(exponential, retryAfter ?? 0);
    });
    const retrying = retry(handleWhen(retryable), { maxAttempts: options.maxAttempts - 1, backoff });
    retrying.onRetry((event) => {
      const reason = "error" in event ? event.error.message : "retryable answer";
      options.onRetry?.(reason, event.delay, event.attempt);
    });
    this.policy = wrap(retrying, timeout(options.timeoutMs, TimeoutStrategy.Aggressive));
  }

  /**
   * GETs `url` and parses JSON. Statuses in `accept` (besides 2xx) are returned rather than thrown,
   * e.g. a 404 that a feed uses to say "no more pages".
   */
  async getJson(url: string, headers: Record<string, string>, accept: number[] = []): Promise<UpstreamResponse> {
    return this.policy.execute(async ({ signal }) => {
      await this.waitForSlot(signal);
      const res = await fetch(url, { headers: { accept: "application/json", ...headers }, signal });
      this.options.onAnswer?.(res.status, res.headers);
      if (res.ok) return { status: res.status, headers: res.headers, body: await res.json() };
      await res.body?.cancel();
      if (accept.includes(res.status)) return { status: res.status, headers: res.headers, body: undefined };
      throw new UpstreamHttpError(res.status, redact(url), parseRetryAfter(res.headers.get("retry-after"), Date.now()));
    });
  }

  /** Spaces request starts to the plan's rate (shared by every request of this client). */
  private async waitForSlot(signal: AbortSignal): Promise<void> {
    if (this.options.requestsPerMinute <= 0) return;
    const now = Date.now();
    const start = Math.max(now, this.nextSlotMs);
    this.nextSlotMs = start + 60_000 / this.options.requestsPerMinute;
    if (start > now) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, start - now);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted while waiting for a request slot"));
        });
      });
    }
  }
}

/** A URL fit for logs: query keys that carry credentials are masked. */
export function redact(url: string): string {
  const parsed = new URL(url);
  for (const key of ["apiKey", "apikey", "api_key"])
    if (parsed.searchParams.has(key)) parsed.searchParams.set(key, "***");
  return parsed.toString();
}
