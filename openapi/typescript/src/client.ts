/**
 * The client: openapi-fetch over the generated `paths`, with the retries of retry.ts,
 * `move`, the one call a bot makes per move, and `backIfAway`, the one it makes on a
 * view that shows its seat `away`.
 *
 * Why openapi-fetch and not a generated class per operation: it is typed by the same
 * `paths` the document generates (a wrong path, parameter or body does not compile), it
 * is one small dependency, and every operation of the document is callable the day it is
 * added, with no code here.
 *
 * Why a thin layer over it: openapi-fetch returns an error answer as `error` beside
 * `data`, while a refused connection throws; here every call gives its answer (`data`,
 * typed as the operation's success, and the `response`) or throws one of errors.ts's
 * `ApiError`s, so a caller handles every failure in one `catch`.
 */
import createClient, {
  mergeHeaders, type Client, type ClientOptions, type ClientPathsWithMethod, type FetchResponse,
  type MaybeOptionalInit,
} from "openapi-fetch";

import { ApiError, isProblem, NetworkError, ProblemError, ProtocolError } from "./errors.js";
import type { paths } from "./generated/api.js";
import { retryingFetch, type RetryOptions } from "./retry.js";
import type { Action, GameView } from "./types.js";

type Raw = Client<paths>;
type Verb = "get" | "put" | "post" | "delete" | "patch";
type Media = `${string}/${string}`;
// openapi-fetch's own helpers (not exported): the options argument may be left out only
// when nothing in it is required
type RequiredKeysOfHelper<T> = { [K in keyof T]: {} extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> =
  RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;
type InitParam<Init> = RequiredKeysOf<Init> extends never
  ? [(Init & { [key: string]: unknown })?]
  : [Init & { [key: string]: unknown }];

/** What a call gives: openapi-fetch's success branch, `data` (the operation's success
 * body, typed) and the `response`; anything else was thrown. */
export type Answer<R> = Extract<R, { data: unknown }>;

/** One method of the client, typed as openapi-fetch types it, answering only success. */
export type Call<V extends Verb> = <
  Path extends ClientPathsWithMethod<Raw, V>, Init extends MaybeOptionalInit<paths[Path], V>,
>(url: Path, ...init: InitParam<Init>) => Promise<Answer<OperationResponse<paths[Path][V], Init>>>;

/** openapi-fetch's `FetchResponse` of an operation (its declaration leaves the constraint
 * on the operation to its caller: this is that). */
type OperationResponse<Op, Init> =
  Op extends Record<string | number, any> ? FetchResponse<Op, Init, Media> : never;

/**
 * A client of every operation of the document, e.g. `api.GET("/v1/games/{game_id}", …)`:
 * each answers `{ data, response }` or throws an `ApiError` (errors.ts).
 */
export interface Api {
  GET: Call<"get">;
  POST: Call<"post">;
  PUT: Call<"put">;
  PATCH: Call<"patch">;
  DELETE: Call<"delete">;
}

export interface ApiOptions extends RetryOptions {
  /** The service's root, e.g. `http://127.0.0.1:8000` (the document's paths start `/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` on every request (a seat token or account key). */
  token?: string;
  /** Anything else openapi-fetch takes (headers, a `Request` class…). */
  client?: Omit<ClientOptions, "baseUrl" | "fetch">;
}

/** A client whose requests wait out `429` and `503` as their `Retry-After` says, and
 * whose every failure is thrown as an `ApiError`. */
export function createApi(options: ApiOptions): Api {
  const auth = options.token === undefined ? undefined : bearer(options.token);
  const raw = createClient<paths>({
    ...options.client,
    headers: mergeHeaders(options.client?.headers, auth),
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: retryingFetch(options),
  });
  return {
    GET: throwing(raw.GET), POST: throwing(raw.POST), PUT: throwing(raw.PUT),
    PATCH: throwing(raw.PATCH), DELETE: throwing(raw.DELETE),
  } as unknown as Api;
}

/** What openapi-fetch resolves to, whichever the operation. */
type Result = { data?: unknown; error?: unknown; response: Response };
type Send = (url: string, init?: { signal?: AbortSignal | null }) => Promise<Result>;

/** An openapi-fetch method whose error answers, and every failure, are thrown `ApiError`s. */
function throwing(method: unknown): Send {
  const send = method as Send;
  return async (url, init) => {
    let result: Result;
    try {
      result = await send(url, init);
    } catch (error) {
      const signal = init?.signal;
      if (signal?.aborted) throw signal.reason; // the caller's own abort, as fetch rejects
      if (error instanceof ApiError) throw error; // retry.ts's NetworkError, TimeoutError
      if (error instanceof SyntaxError) {
        throw new ProtocolError(`${url}: the answer is not JSON`, { cause: error });
      }
      throw new NetworkError(`${url}: the answer could not be read`, { cause: error });
    }
    const { error, response } = result;
    if (!response.ok) {
      throw new ProblemError(response.status, isProblem(error) ? error : undefined, response.headers);
    }
    return result;
  };
}

/** The header that makes a request act as one seat (or account): pass as `headers`. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** A version as the ETag and `If-Match` spell it: `"12"` (RFC 9110's quotes). */
export function etag(version: number): string {
  return `"${version}"`;
}

export interface Move {
  gameId: string;
  /** The seat's token (or its account's key). */
  token: string;
  /** The version of the view the action was chosen on. */
  version: number;
  action: Action;
  /** A fresh UUID unless given: give the same one to retry a move whose answer was lost. */
  idempotencyKey?: string;
}

/**
 * A fresh `Idempotency-Key`: a random UUID where the platform has Web Crypto as a global
 * (browsers, Node 19+); else 128 random bits from `Math.random` (Node 18, Debian 12's,
 * has no global `crypto` in a module). A key needs to be unique, not secret: only the
 * seat's own token can send it.
 */
export function newKey(): string {
  if (typeof globalThis.crypto?.randomUUID === "function") return globalThis.crypto.randomUUID();
  const part = () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, "0");
  return `${part()}${part()}-${part()}-${part()}`;
}

/**
 * Send one action with `If-Match` (the version it was chosen on: on a stale view the
 * answer is `412 version_conflict`, never a move applied to a position the bot did not
 * see) and an `Idempotency-Key` (kept through the retries of a `503`, so a move whose
 * answer was lost is not made twice). Its `data` is the seat's new view; a refusal is thrown as a `ProblemError` (`412 version_conflict`: a
 * stale view, `409 not_your_turn`…).
 */
export function move(api: Api, { gameId, token, version, action, idempotencyKey }: Move) {
  return api.POST("/v1/games/{game_id}/actions", {
    params: {
      path: { game_id: gameId },
      header: {
        "If-Match": etag(version),
        "Idempotency-Key": idempotencyKey ?? newKey(),
      },
    },
    headers: bearer(token),
    body: action,
  });
}

/**
 * Whether `view` shows its reader's own seat `away`: its clock ran out twice in a row, so
 * the service's stand-in plays it (and an opponent may claim the game against it) until
 * its player sends `{"type": "back"}`. An away seat has no `legal_actions` of its own.
 */
export function isAway(view: GameView): boolean {
  const seat = view.you?.seat;
  return view.status !== "finished" && seat !== undefined && view.players[seat]?.kind === "away";
}

export interface Comeback {
  gameId: string;
  /** The seat's token (or its account's key). */
  token: string;
  /** The seat's latest view. */
  view: GameView;
}

/**
 * Send `{"type": "back"}` when `view` shows the seat `away` (`isAway`), once: a bot that
 * was down for two clocks plays its own turns again. Call it on each view before
 * deciding a move; without an away seat it sends nothing and gives `undefined`. Sent
 * with an `Idempotency-Key` and no `If-Match`: coming back does not depend on the
 * position, which the stand-in keeps changing meanwhile. Its `409`s (back already, the
 * game over, claimed against) are thrown as `ProblemError`s: nothing to send again.
 */
export async function backIfAway(api: Api, { gameId, token, view }: Comeback) {
  if (!isAway(view)) return undefined;
  return api.POST("/v1/games/{game_id}/actions", {
    params: { path: { game_id: gameId }, header: { "Idempotency-Key": newKey() } },
    headers: bearer(token),
    body: { type: "back" },
  });
}
