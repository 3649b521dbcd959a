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
 *
 * What it throws (errors.ts): a connection that failed, once its retries are spent or when
 * it may not be repeated, is a `NetworkError` whose `cause` is what `fetch` threw; an
 * attempt with no answer within `timeoutMs` is aborted and thrown as a `TimeoutError`,
 * never retried (the bound is the caller's). A request aborted by its own signal rejects
 * with that signal's reason, as `fetch` does.
 */
import { ApiError, NetworkError, TimeoutError } from "./errors.js";


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
  /**
   * The longest wait for an answer, per attempt, in ms, until its status and headers
   * have come (60 000; `Infinity`: none). A long-poll's `timeout` (at most 30 s) fits.
   */
  timeoutMs?: number;
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
  const timeoutMs = options.timeoutMs ?? 60_000;
  const sleep = options.sleep ?? abortableSleep;
  return async (request: Request): Promise<Response> => {
    // looked up per call, not bound once: a test or a polyfill may replace it later
    const send = options.fetch ?? ((r: Request) => globalThis.fetch(r));
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await within(timeoutMs, request, send);
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason; // the caller's own abort
        const failure = error instanceof ApiError ? error : new NetworkError(
          `${request.method} ${request.url}: ${describe(error)}`, { cause: error });
        // a dropped connection is retried when the request may be repeated; a timeout never
        if (!(failure instanceof NetworkError) || attempt > retries || !repeatable(request)) {
          throw failure;
        }
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

/**
 * One attempt: a clone of `request` (its body may be sent again) on a signal that also
 * aborts, with a `TimeoutError`, when no answer came within `ms`. The timer stops once the
 * answer is in, so a stream's body is read for as long as it lasts; the caller's signal
 * still aborts it.
 */
async function within(ms: number, request: Request, send: Fetch): Promise<Response> {
  if (!Number.isFinite(ms)) return send(request.clone());
  const timer = new AbortController();
  const clock = setTimeout(() => timer.abort(new TimeoutError(ms)), ms);
  try {
    return await send(new Request(request.clone(), { signal: either(request.signal, timer.signal) }));
  } catch (error) {
    // the transport may say it its own way (an AbortError): the timeout is what happened
    if (timer.signal.aborted && !request.signal.aborted) throw timer.signal.reason;
    throw error;
  } finally {
    clearTimeout(clock);
  }
}

/** A signal that aborts when either does, with its reason (`AbortSignal.any` where the
 * platform has it: Node 20.3 and later, current browsers). */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const both = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) both.abort(signal.reason);
    else signal.addEventListener("abort", () => both.abort(signal.reason), { once: true });
  }
  return both.signal;
}

/** What a failed `fetch` said, with its cause's words (undici's `fetch failed` names none). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
