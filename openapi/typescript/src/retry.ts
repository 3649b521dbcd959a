/**
 * A `fetch` that waits and tries again when the service says "not now".
 *
 * Why in the fetch rather than around each call: openapi-fetch hands every request to
 * the `fetch` of its client as a `Request`, so one wrapper covers every operation, the
 * streams' opening included, and the caller sees only the final answer.
 *
 * What is retried, and why that is safe (docs/api.md):
 * - `429` (`rate_limited`, `too_many_waits`): refused before anything was done.
 * - `503` (`storage_unavailable`) only for a request that may be repeated: a `GET`,
 *   `HEAD`, `PUT`, `DELETE` or `OPTIONS`, or one with an `Idempotency-Key` (a move). A
 *   503 does not prove that a write was not made, and a retry of a move with the same key
 *   returns the first answer instead of moving twice.
 * - A connection dropped before an answer, for the same requests as a 503.
 *
 * The wait is the answer's `Retry-After` (seconds, or an HTTP date), capped by
 * `maxDelayMs`; without one, `defaultDelayMs`. Each retry sends the same `Request` again
 * (a clone), so its `Idempotency-Key` and `If-Match` stay those of the first attempt.
 */

/** What a client's `fetch` option takes: openapi-fetch always passes a `Request`. */
export type Fetch = (request: Request) => Promise<Response>;

/** One wait before a retry, for logs and tests. */
export interface RetryNotice {
  request: Request;
  /** The refusing answer's status; `undefined` when the connection dropped. */
  status: number | undefined;
  /** The wait before the next attempt, in ms. */
  delayMs: number;
  /** 1 for the first retry. */
  attempt: number;
}

export interface RetryOptions {
  /** Retries after the first attempt (8). */
  retries?: number;
  /** The longest wait, in ms, whatever `Retry-After` says (30 000). */
  maxDelayMs?: number;
  /** The wait when an answer has no `Retry-After`, in ms (1 000). */
  defaultDelayMs?: number;
  /** The fetch that sends (`globalThis.fetch`). */
  fetch?: Fetch;
  /** Called before each wait. */
  onRetry?: (notice: RetryNotice) => void;
  /** How to wait (a timer that an aborted request's signal cuts short). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** Whether sending `request` twice does no more than sending it once. */
export function repeatable(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has("Idempotency-Key");
}

/**
 * The wait a `Retry-After` value asks for, in ms: delta-seconds (`"2"`) or an HTTP date;
 * `undefined` when absent or unreadable. `now` is for tests.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const when = Date.parse(text);
  return Number.isNaN(when) ? undefined : Math.max(0, when - now);
}

/** A timer that ends early (rejecting with the signal's reason) when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `fetch` wrapped as the module's comment says. */
export function retryingFetch(options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 8;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const defaultDelayMs = options.defaultDelayMs ?? 1_000;
  const sleep = options.sleep ?? abortableSleep;
  return async (request: Request): Promise<Response> => {
    // looked up per call, not bound once: a test or a polyfill may replace it later
    const send = options.fetch ?? ((r: Request) => globalThis.fetch(r));
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        // a dropped connection (fetch rejects with a TypeError); never an abort
        if (request.signal.aborted || attempt > retries || !repeatable(request)) throw error;
        const delayMs = Math.min(defaultDelayMs, maxDelayMs);
        options.onRetry?.({ request, status: undefined, delayMs, attempt });
        await sleep(delayMs, request.signal);
        continue;
      }
      const again = response.status === 429 || (response.status === 503 && repeatable(request));
      if (!again || attempt > retries) return response;
      const asked = retryAfterMs(response.headers.get("Retry-After"));
      const delayMs = Math.min(asked ?? defaultDelayMs, maxDelayMs);
      await response.body?.cancel(); // free the connection: this answer is not read
      options.onRetry?.({ request, status: response.status, delayMs, attempt });
      await sleep(delayMs, request.signal);
    }
  };
}
