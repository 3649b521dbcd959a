/**
 * A typed client of the Three-Thirteen API (docs/clients.md):
 * - `createApi`: openapi-fetch over the types openapi-typescript generates from
 *   openapi/openapi.json, waiting out `429`/`503` as `Retry-After` says;
 * - `move`: one action with `If-Match` and an `Idempotency-Key`;
 * - `backIfAway`: `{"type": "back"}` for a seat its view shows `away`;
 * - `followGame`, `followAccount`: a stream's messages, typed and resumed;
 * - what every one of them throws, and nothing else: an `ApiError` (`ProblemError`,
 *   `NetworkError`, `TimeoutError`, `ProtocolError`).
 */
export {
  backIfAway, bearer, createApi, etag, isAway, move, newKey, type Answer, type Api, type ApiOptions,
  type Call, type Comeback, type Move,
} from "./client.js";
export {
  ApiError, NetworkError, ProblemError, ProtocolError, StreamLost, StreamSilent, TimeoutError,
} from "./errors.js";
export { ndjson, serverSentEvents, type SseEvent } from "./framing.js";
export {
  repeatable, retryAfterMs, retryingFetch, type Fetch, type RetryNotice, type RetryOptions,
} from "./retry.js";
export { followAccount, followGame, type FollowOptions } from "./stream.js";
export type * from "./types.js";
