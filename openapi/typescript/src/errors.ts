/** The errors the hand-written layer throws (openapi-fetch itself returns `error`, never throws). */
import type { Problem } from "./types.js";

/** A stream the service refused (after the retries of `429`/`503`): its status and problem. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The problem+json body; `undefined` when the answer had none (a proxy's page). */
    readonly problem: Problem | undefined,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.name = "ApiError";
  }
}

/** A stream that stopped short too many times in a row (no message in between). */
export class StreamLost extends Error {
  constructor(readonly attempts: number, options?: { cause?: unknown }) {
    super(`the stream dropped ${attempts} times in a row without a message`, options);
    this.name = "StreamLost";
  }
}
