/**
 * What the client throws: one family, `ApiError`, and nothing else (docs/clients.md).
 *
 * Why one family rather than openapi-fetch's returned `error` beside thrown `TypeError`s:
 * a caller then handled a refusal in one place (`if (result.error)`), a server that was
 * down in another (a bare `TypeError: fetch failed`, or whatever a custom `fetch` threw),
 * and a hung one nowhere. Now every call either gives its answer or throws an `ApiError`,
 * and `instanceof` tells which kind, as the Python client's `ApiError` (a problem answer)
 * and `TransportError` (no answer) do:
 *
 * - `ProblemError`: the service answered with an error status (`status`, its problem's
 *   `code` and `detail`, the whole `problem`, the answer's `headers`);
 * - `NetworkError`: no answer, the connection refused, reset or cut (its `cause` is what
 *   `fetch` threw, a `TypeError` in every runtime); `StreamLost` is one;
 * - `TimeoutError`: no answer within the time allowed (`ms`); `StreamSilent` is one;
 * - `ProtocolError`: an answer that is not what the API sends (a success whose body is
 *   not JSON, a stream line that is no message: a proxy's page, say).
 *
 * The one exception is the caller's own: a call aborted with a `signal` it was given
 * rejects with that signal's `reason`, as `fetch` does.
 */
import type { Problem, ProblemCode } from "./types.js";

/** The base of everything the client throws. */
export class ApiError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ApiError";
  }
}

/** The service answered with an error status (`4xx`, or a `5xx` after the retries). */
export class ProblemError extends ApiError {
  /** The problem's `code`; `http_error` when the answer had no problem body (a proxy's page). */
  readonly code: ProblemCode;
  /** The problem's `detail` (else its `title`, else the status). */
  readonly detail: string;

  constructor(
    readonly status: number,
    /** The problem+json body; `undefined` when the answer had none. */
    readonly problem: Problem | undefined,
    /** The answer's headers (`Retry-After`, `RateLimit-*`…). */
    readonly headers: Headers = new Headers(),
  ) {
    const code = problem?.code ?? "http_error";
    const detail = problem?.detail ?? problem?.title ?? `HTTP ${status}`;
    super(`${status} ${code}: ${detail}`);
    this.name = "ProblemError";
    this.code = code;
    this.detail = detail;
  }
}

/** No answer: the connection was refused, reset or cut (after the retries that were safe). */
export class NetworkError extends ApiError {
  /** `cause`: what the transport threw (a `TypeError` from `fetch`, with its own `cause`). */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NetworkError";
  }
}

/** No answer within `ms` milliseconds (the request is aborted). */
export class TimeoutError extends ApiError {
  constructor(readonly ms: number, message = `no answer within ${ms} ms`) {
    super(message);
    this.name = "TimeoutError";
  }
}

/** An answer that is not what the API sends; `cause` is the parser's error. */
export class ProtocolError extends ApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProtocolError";
  }
}

/** A stream that stopped short too many times in a row (no message in between). */
export class StreamLost extends NetworkError {
  constructor(readonly attempts: number, options?: { cause?: unknown }) {
    super(`the stream dropped ${attempts} times in a row without a message`, options);
    this.name = "StreamLost";
  }
}

/** No byte of a stream for `ms` (the service's heartbeat is 15 s): a dead connection. */
export class StreamSilent extends TimeoutError {
  constructor(ms: number) {
    super(ms, `no byte in ${ms} ms: the connection is taken for dead`);
    this.name = "StreamSilent";
  }
}

/** Whether `value` is a problem+json body (the service's refusals all are). */
export function isProblem(value: unknown): value is Problem {
  return typeof value === "object" && value !== null && "code" in value && "detail" in value;
}
